#include "transport/engine.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "transport/bmc_state.hpp"
#include "transport/tls_pin.hpp"
#include "transport/url.hpp"

namespace redfish::detail {
namespace {

// Every BMC may hold a kept-alive connection per slot: thousands of sockets, over the usual
// soft limit of 1024 descriptors.
void raiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

namespace {

constexpr int kMaxPollMs = 1000;
// After shutdown's session DELETEs are sent, how much longer than closeTimeout to wait for them.
constexpr std::chrono::milliseconds kShutdownGrace{500};

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

Engine::Engine(TransportOptions options) : options_(std::move(options)) {
  static CurlGlobal global;  // thread-safe once, before the first multi handle
  options_.maxInFlightPerBmc = std::max<std::size_t>(options_.maxInFlightPerBmc, 1);
  options_.maxInFlightTotal = std::max<std::size_t>(options_.maxInFlightTotal, 1);
  options_.maxAttempts = std::max(options_.maxAttempts, 1);
  multi_ = curl_multi_init();
  // Our own limits bound what is in flight. libcurl may keep one idle connection per allowed
  // slot of every BMC (MAXCONNECTS grows with the clients), so that a fleet larger than the
  // global limit still reuses its connections instead of evicting them round after round.
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS,
                    static_cast<long>(options_.maxInFlightPerBmc));
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(options_.maxInFlightPerBmc));
  raiseOpenFileLimit();
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wakeFd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event wakeEvent{};
  wakeEvent.events = EPOLLIN;
  wakeEvent.data.fd = wakeFd_;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, wakeFd_, &wakeEvent);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Engine::onSocket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Engine::onTimer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
}

Engine::~Engine() {
  shutdown();
  for (auto& [easy, running] : running_) curl_multi_remove_handle(multi_, easy);
  running_.clear();
  curl_multi_cleanup(multi_);  // closes the cached connections while every TlsPin still lives
  close(wakeFd_);
  close(epoll_);  // after the cleanup: it still tells onSocket to stop watching its sockets
}

int Engine::onSocket(CURL*, curl_socket_t socket, int what, void* self, void* socketp) {
  auto* engine = static_cast<Engine*>(self);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(engine->epoll_, EPOLL_CTL_DEL, socket, nullptr);
    curl_multi_assign(engine->multi_, socket, nullptr);
    return 0;
  }
  epoll_event event{};
  event.data.fd = socket;
  event.events =
      ((what & CURL_POLL_IN) != 0 ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) != 0 ? EPOLLOUT : 0u);
  const bool known = socketp != nullptr;
  if (epoll_ctl(engine->epoll_, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket, &event) != 0) {
    // A reused descriptor number or a socket libcurl re-announces: try the other operation.
    epoll_ctl(engine->epoll_, known ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, socket, &event);
  }
  if (!known) curl_multi_assign(engine->multi_, socket, engine);
  return 0;
}

int Engine::onTimer(CURLM*, long timeoutMs, void* self) {
  auto* engine = static_cast<Engine*>(self);
  engine->curlTimerArmed_ = timeoutMs >= 0;
  if (timeoutMs >= 0) {
    engine->curlDeadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  }
  return 0;
}

void Engine::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto written = write(wakeFd_, &one, sizeof one);
}

void Engine::runCurlTimeoutIfDue() {
  if (!curlTimerArmed_ || std::chrono::steady_clock::now() < curlDeadline_) return;
  curlTimerArmed_ = false;
  int running = 0;
  curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
}

void Engine::dispatch(int fd, std::uint32_t events) {
  if (fd == wakeFd_) {
    std::uint64_t count = 0;
    [[maybe_unused]] auto drained = read(wakeFd_, &count, sizeof count);
    return;
  }
  int flags = 0;
  if ((events & EPOLLIN) != 0) flags |= CURL_CSELECT_IN;
  if ((events & EPOLLOUT) != 0) flags |= CURL_CSELECT_OUT;
  if ((events & (EPOLLERR | EPOLLHUP)) != 0) flags |= CURL_CSELECT_ERR;
  int running = 0;
  curl_multi_socket_action(multi_, fd, flags, &running);
}

void Engine::start() {
  thread_ = std::thread([this] {
    loopId_.store(std::this_thread::get_id());
    run();
  });
}

bool Engine::post(std::function<void()> task) {
  {
    std::lock_guard lock(tasksMutex_);
    if (closed_) return false;
    tasks_.push_back(std::move(task));
  }
  wake();
  return true;
}

void Engine::shutdown() {
  {
    std::lock_guard lock(tasksMutex_);
    if (!closed_) {
      tasks_.push_back([this] { beginShutdown(); });
      closed_ = true;
    }
  }
  wake();
  if (onLoopThread()) return;  // the loop finishes by itself; whoever owns us joins
  std::lock_guard join(joinMutex_);
  if (thread_.joinable()) thread_.join();
}

common::Result<std::shared_ptr<BmcClient>> Engine::client(const BmcEndpoint& endpoint) {
  PROV_ASSIGN(std::string base, normaliseBaseUrl(endpoint.baseUrl));
  if (endpoint.tls.mode == TlsPolicy::Mode::kPinned &&
      !normaliseFingerprint(endpoint.tls.pinnedSha256)) {
    return common::invalidArgument("invalid_pin", "pinned fingerprint is not a SHA-256 in hex",
                                   "tls.pinnedSha256");
  }
  if (endpoint.tls.mode == TlsPolicy::Mode::kCaBundle && endpoint.tls.caBundlePath.empty()) {
    return common::invalidArgument("invalid_ca_bundle", "CA bundle mode needs a path",
                                   "tls.caBundlePath");
  }
  std::lock_guard lock(clientsMutex_);
  auto found = clients_.find(base);
  if (found != clients_.end()) return found->second;
  auto state = std::make_shared<BmcState>(*this, base, endpoint);
  auto created = std::make_shared<BmcClient>(weak_from_this(), state);
  states_.push_back(state);
  clients_.emplace(base, created);
  const auto cacheSize = static_cast<long>(clients_.size() * options_.maxInFlightPerBmc);
  post([this, cacheSize] { curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, cacheSize); });
  return created;
}

TransportStats Engine::stats() const {
  TransportStats out;
  out.attempts = attempts_.load();
  out.retries = retries_.load();
  out.logins = logins_.load();
  out.connectionsOpened = connections_.load();
  out.completed = completed_.load();
  out.peakInFlight = peakInFlight_.load();
  out.inFlight = inFlight_.load();
  return out;
}

void Engine::markReady(BmcState* bmc) {
  if (bmc->inReadyRing) return;
  bmc->inReadyRing = true;
  ready_.push_back(bmc);
}

void Engine::startAttempt(BmcState& bmc, const CallPtr& call) {
  CURL* easy = call->easy->handle();
  running_.emplace(easy, Running{&bmc, call});
  curl_multi_add_handle(multi_, easy);
  attempts_++;
  if (call->attempts > 1) retries_++;
  std::size_t now = ++inFlight_;
  if (now > peakInFlight_.load()) peakInFlight_.store(now);
}

std::vector<CallPtr> Engine::takeRunning(const BmcState& bmc) {
  std::vector<CallPtr> taken;
  for (auto it = running_.begin(); it != running_.end();) {
    if (it->second.bmc != &bmc) {
      ++it;
      continue;
    }
    curl_multi_remove_handle(multi_, it->first);
    taken.push_back(std::move(it->second.call));
    it = running_.erase(it);
    inFlight_--;
  }
  return taken;
}

void Engine::addTimer(std::chrono::milliseconds delay, std::function<void()> fire) {
  timers_.emplace(std::chrono::steady_clock::now() + delay, std::move(fire));
}

void Engine::run() {
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  while (true) {
    runTasks();
    pump();
    runCurlTimeoutIfDue();
    collectFinished();
    fireDueTimers();
    pump();
    runCurlTimeoutIfDue();  // new attempts ask libcurl to be called back at once
    collectFinished();
    if (stopping_) {
      if (running_.empty() && ready_.empty()) break;
      if (std::chrono::steady_clock::now() >= stopDeadline_) {
        abandonRunning();
        break;
      }
    }
    const int ready = epoll_wait(epoll_, events, kMaxEvents, pollTimeoutMs());
    for (int i = 0; i < ready; ++i) dispatch(events[i].data.fd, events[i].events);
    collectFinished();
  }
  runTasks();  // tasks posted before `closed_` was set still run (and complete as cancelled)
}

void Engine::runTasks() {
  std::vector<std::function<void()>> batch;
  {
    std::lock_guard lock(tasksMutex_);
    batch.swap(tasks_);
  }
  for (auto& task : batch) task();
}

void Engine::pump() {
  while (inFlight_.load() < options_.maxInFlightTotal && !ready_.empty()) {
    BmcState* bmc = ready_.front();
    ready_.pop_front();
    bmc->inReadyRing = false;
    bmc->startOne();
    if (bmc->hasStartable()) markReady(bmc);  // round robin: one attempt per BMC per turn
  }
}

void Engine::collectFinished() {
  int left = 0;
  while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    CURLcode code = message->data.result;
    auto it = running_.find(easy);
    if (it == running_.end()) continue;
    Running done = std::move(it->second);
    running_.erase(it);
    AttemptOutcome outcome = done.call->easy->finish(code);
    curl_multi_remove_handle(multi_, easy);
    inFlight_--;
    connections_ += static_cast<std::uint64_t>(std::max(outcome.connectsOpened, 0L));
    done.bmc->onAttemptDone(done.call, std::move(outcome));
    markReady(done.bmc);
  }
}

void Engine::fireDueTimers() {
  auto now = std::chrono::steady_clock::now();
  while (!timers_.empty() && timers_.begin()->first <= now) {
    auto fire = std::move(timers_.begin()->second);
    timers_.erase(timers_.begin());
    fire();
  }
}

int Engine::pollTimeoutMs() {
  long wait = kMaxPollMs;
  if (curlTimerArmed_) {
    auto untilCurl = std::chrono::duration_cast<std::chrono::milliseconds>(
        curlDeadline_ - std::chrono::steady_clock::now());
    wait = std::min<long>(wait, std::max<long>(untilCurl.count(), 0));
  }
  if (!timers_.empty()) {
    auto untilTimer = std::chrono::duration_cast<std::chrono::milliseconds>(
        timers_.begin()->first - std::chrono::steady_clock::now());
    wait = std::min<long>(wait, std::max<long>(untilTimer.count() + 1, 0));
  }
  if (stopping_) {
    auto untilDeadline = std::chrono::duration_cast<std::chrono::milliseconds>(
        stopDeadline_ - std::chrono::steady_clock::now());
    wait = std::min<long>(wait, std::max<long>(untilDeadline.count() + 1, 0));
  }
  return static_cast<int>(wait);
}

void Engine::beginShutdown() {
  stopping_ = true;
  stopDeadline_ = std::chrono::steady_clock::now() + options_.closeTimeout + kShutdownGrace;
  std::vector<std::shared_ptr<BmcState>> states;
  {
    std::lock_guard lock(clientsMutex_);
    states = states_;
  }
  for (const auto& state : states) state->closeSession([](common::Result<void>) {});
}

// The shutdown deadline passed: whatever still runs completes as cancelled.
void Engine::abandonRunning() {
  std::vector<std::shared_ptr<BmcState>> states;
  {
    std::lock_guard lock(clientsMutex_);
    states = states_;
  }
  for (const auto& state : states) state->cancelAll();
  timers_.clear();
}

}  // namespace redfish::detail
