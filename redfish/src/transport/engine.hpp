// The event loop: one thread drives a libcurl multi handle for every BMC. Other threads only post
// tasks (a locked queue + curl_multi_wakeup); everything else here runs on the loop thread.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "redfish/transport.hpp"
#include "transport/call.hpp"

namespace redfish::detail {

class Engine : public std::enable_shared_from_this<Engine> {
 public:
  explicit Engine(TransportOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void start();
  // Any thread. False once shutdown has begun: the task will never run.
  bool post(std::function<void()> task);
  // Any thread but the loop's: cancels, DELETEs sessions, joins. Idempotent.
  void shutdown();
  bool onLoopThread() const { return std::this_thread::get_id() == loopId_.load(); }

  common::Result<std::shared_ptr<BmcClient>> client(const BmcEndpoint& endpoint);
  TransportStats stats() const;
  const TransportOptions& options() const { return options_; }

  // Loop thread only.
  bool stopping() const { return stopping_; }
  void markReady(BmcState* bmc);
  // Adds the call's prepared easy handle to the multi handle.
  void startAttempt(BmcState& bmc, const CallPtr& call);
  // Removes every running attempt of `bmc` and returns its calls (for cancellation).
  std::vector<CallPtr> takeRunning(const BmcState& bmc);
  void addTimer(std::chrono::milliseconds delay, std::function<void()> fire);
  std::mt19937_64& random() { return random_; }
  void countLogin() { logins_++; }
  void countCompleted() { completed_++; }

 private:
  struct Running {
    BmcState* bmc;
    CallPtr call;
  };

  void run();
  void wake();
  void dispatch(int fd, std::uint32_t events);
  void runCurlTimeoutIfDue();
  // libcurl's socket and timer callbacks: which sockets to watch, and when to call it back.
  static int onSocket(CURL* easy, curl_socket_t socket, int what, void* self, void* socketp);
  static int onTimer(CURLM* multi, long timeoutMs, void* self);
  void runTasks();
  void pump();
  void collectFinished();
  void fireDueTimers();
  int pollTimeoutMs();
  void beginShutdown();
  void abandonRunning();

  TransportOptions options_;
  CURLM* multi_ = nullptr;
  // epoll over the sockets libcurl asks for (curl_multi_socket_action): each wake-up costs what
  // is ready, not a pass over thousands of idle connections. wakeFd_ (an eventfd) interrupts it.
  int epoll_ = -1;
  int wakeFd_ = -1;
  bool curlTimerArmed_ = false;
  std::chrono::steady_clock::time_point curlDeadline_{};
  std::thread thread_;
  std::atomic<std::thread::id> loopId_{};
  std::mutex joinMutex_;

  std::mutex tasksMutex_;
  std::vector<std::function<void()>> tasks_;
  bool closed_ = false;  // guarded by tasksMutex_

  std::mutex clientsMutex_;
  std::unordered_map<std::string, std::shared_ptr<BmcClient>> clients_;
  std::vector<std::shared_ptr<BmcState>> states_;  // guarded by clientsMutex_

  // Loop thread state.
  std::unordered_map<CURL*, Running> running_;
  std::deque<BmcState*> ready_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> timers_;
  std::mt19937_64 random_{std::random_device{}()};
  bool stopping_ = false;
  std::chrono::steady_clock::time_point stopDeadline_{};

  std::atomic<std::uint64_t> attempts_{0}, retries_{0}, logins_{0}, connections_{0}, completed_{0};
  std::atomic<std::size_t> inFlight_{0}, peakInFlight_{0};
};

}  // namespace redfish::detail
