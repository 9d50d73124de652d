#include "engine/http_site.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <exception>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/ssl.h>

#include "engine/http_exchange.hpp"

namespace sim::engine {

struct HttpSite::Pending {
  HttpSite* site = nullptr;
  Connection* connection = nullptr;
  evhttp_request* request = nullptr;
  event* timer = nullptr;  // null for a held request (timeout fault)
  HttpResponse response;
  std::uint64_t deferredId = 0;  // an answer to come (the handler's `later`)
  FaultOutcome outcome = FaultOutcome::kNone;

  ~Pending() {
    if (timer != nullptr) event_free(timer);
  }
};

struct HttpSite::Connection {
  HttpSite* site = nullptr;
  evhttp_connection* evcon = nullptr;
  std::list<std::unique_ptr<Pending>> pending;
  event* resetTimer = nullptr;

  ~Connection() {
    if (resetTimer != nullptr) event_free(resetTimer);
  }
};

namespace {

constexpr std::uint16_t kAllMethods = EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
                                      EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
                                      EVHTTP_REQ_PATCH;

timeval toTimeval(std::chrono::microseconds delay) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(delay.count() / 1'000'000);
  tv.tv_usec = static_cast<suseconds_t>(delay.count() % 1'000'000);
  return tv;
}

HttpResponse serviceUnavailable() {
  HttpResponse response = HttpResponse::error(503, "Base.1.8.ServiceTemporarilyUnavailable",
                                              "The service is temporarily unavailable.");
  response.headers.emplace_back("Retry-After", "1");
  return response;
}

// SO_LINGER 0: closing sends RST, so the client sees a reset rather than a clean end of stream.
void abortOnClose(evhttp_connection* evcon) {
  bufferevent* bev = evhttp_connection_get_bufferevent(evcon);
  evutil_socket_t fd = bev == nullptr ? -1 : bufferevent_getfd(bev);
  if (fd < 0) return;
  linger option{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
}

// Replies go out as separate writes (head, body); without TCP_NODELAY, Nagle holds the body until
// the client's delayed ACK, adding 40 ms to every reply on a kept-alive connection.
void disableNagle(evhttp_connection* evcon) {
  bufferevent* bev = evhttp_connection_get_bufferevent(evcon);
  evutil_socket_t fd = bev == nullptr ? -1 : bufferevent_getfd(bev);
  if (fd < 0) return;
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

}  // namespace

HttpSite::HttpSite(event_base* base, SiteConfig config, ConnectionTotals* totals)
    : base_(base),
      http_(evhttp_new(base)),
      config_(std::move(config)),
      dice_(config_.seed, config_.index),
      totals_(totals) {
  stats_.id = config_.id;
  if (http_ == nullptr) return;
  evhttp_set_gencb(http_, &HttpSite::onRequest, this);
  evhttp_set_bevcb(http_, &HttpSite::newBufferevent, this);
  evhttp_set_allowed_methods(http_, kAllMethods);
  evhttp_set_default_content_type(http_, nullptr);
  if (config_.maxBodyBytes > 0) {
    evhttp_set_max_body_size(http_, static_cast<ev_ssize_t>(config_.maxBodyBytes));
  }
  evhttp_set_timeout(http_, config_.idleTimeoutSeconds);
}

HttpSite::~HttpSite() {
  // Our records go first, without close callbacks; evhttp_free then closes every connection and
  // frees the requests still attached to them (held ones included).
  for (auto& [evcon, connection] : connections_)
    evhttp_connection_set_closecb(evcon, nullptr, nullptr);
  deferred_.clear();
  connections_.clear();
  if (http_ != nullptr) evhttp_free(http_);
}

common::Result<std::uint16_t> HttpSite::bind(std::uint16_t port) {
  if (http_ == nullptr) return common::internalError("evhttp_new failed");
  evhttp_bound_socket* bound = evhttp_bind_socket_with_handle(http_, config_.address.c_str(), port);
  if (bound == nullptr) {
    return common::unavailable("bind_failed",
                               "cannot listen on " + config_.address + ":" + std::to_string(port));
  }
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (getsockname(evhttp_bound_socket_get_fd(bound), reinterpret_cast<sockaddr*>(&local),
                  &length) != 0) {
    return common::internalError("getsockname failed on " + config_.address);
  }
  return ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
}

void HttpSite::setFaults(const LatencyModel& latency, const TransportFaults& transport) {
  config_.latency = latency;
  config_.transport = transport;
}

BmcStats HttpSite::stats() const {
  return stats_;
}

bufferevent* HttpSite::newBufferevent(event_base* base, void* self) {
  auto* site = static_cast<HttpSite*>(self);
  ++site->stats_.connectionsAccepted;
  if (!site->config_.tls) return bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
  SSL* ssl = SSL_new(site->config_.tls->context());
  bufferevent* bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
                                                    BEV_OPT_CLOSE_ON_FREE);
  if (bev != nullptr) bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
  return bev;
}

void HttpSite::onRequest(evhttp_request* request, void* self) {
  auto* site = static_cast<HttpSite*>(self);
  Connection* connection = site->track(evhttp_request_get_connection(request));
  site->serve(request, connection);
}

HttpSite::Connection* HttpSite::track(evhttp_connection* evcon) {
  auto found = connections_.find(evcon);
  if (found != connections_.end()) return found->second.get();
  auto connection = std::make_unique<Connection>();
  connection->site = this;
  connection->evcon = evcon;
  disableNagle(evcon);
  evhttp_connection_set_closecb(evcon, &HttpSite::onConnectionClosed, this);
  ++stats_.openConnections;
  stats_.peakConnections = std::max(stats_.peakConnections, stats_.openConnections);
  ++totals_->open;
  totals_->peak = std::max(totals_->peak, totals_->open);
  return connections_.emplace(evcon, std::move(connection)).first->second.get();
}

void HttpSite::serve(evhttp_request* request, Connection* connection) {
  ++stats_.requests;
  if (!config_.handler->reachable()) {
    ++stats_.faults.unreachable;
    scheduleReset(connection);
    return;
  }
  FaultOutcome outcome = dice_.draw(config_.transport);
  if (outcome == FaultOutcome::kReset) {
    ++stats_.faults.resets;
    scheduleReset(connection);
    return;
  }
  if (outcome == FaultOutcome::kTimeout) {
    ++stats_.faults.timeouts;
    hold(request, connection);
    return;
  }
  HttpResponse response = answer(request, outcome);
  if (response.later) {
    defer(request, connection, outcome, std::move(response.later));
    return;
  }
  reply(request, connection, finish(outcome, std::move(response)));
}

HttpResponse HttpSite::answer(evhttp_request* request, FaultOutcome outcome) {
  if (outcome == FaultOutcome::kHttp5xx) {
    ++stats_.faults.http5xx;
    return serviceUnavailable();
  }
  try {
    return config_.handler->handle(readRequest(request));
  } catch (const std::exception&) {  // a handler bug must not take the loop down
    return HttpResponse::error(500, "Base.1.8.InternalError", "The handler failed.");
  }
}

HttpResponse HttpSite::finish(FaultOutcome outcome, HttpResponse response) {
  if (outcome == FaultOutcome::kMalformed && !response.body.empty()) {
    ++stats_.faults.malformed;
    response.body.resize(response.body.size() / 2);
  }
  return response;
}

HttpSite::Pending& HttpSite::watchClose(evhttp_request* request, Connection* connection) {
  // libevent stops reading while a request waits for its answer, so it would not notice the
  // client leaving: watch the socket for the peer's close ourselves, and give up after the idle
  // timeout in any case.
  auto pending = std::make_unique<Pending>();
  pending->site = this;
  pending->connection = connection;
  pending->request = request;
  bufferevent* bev = evhttp_connection_get_bufferevent(connection->evcon);
  evutil_socket_t fd = bev == nullptr ? -1 : bufferevent_getfd(bev);
  pending->timer = event_new(base_, fd, fd < 0 ? 0 : EV_CLOSED, &HttpSite::onHeldDone, connection);
  timeval cap{config_.idleTimeoutSeconds, 0};
  event_add(pending->timer, &cap);
  connection->pending.push_back(std::move(pending));
  return *connection->pending.back();
}

void HttpSite::hold(evhttp_request* request, Connection* connection) {
  watchClose(request, connection);
}

// The answer arrives through the mailbox on the loop thread, unless the client left first (its
// connection's records, and this id, are gone then) or the engine stopped.
void HttpSite::defer(evhttp_request* request, Connection* connection, FaultOutcome outcome,
                     std::function<void(AnswerSink)> later) {
  if (!config_.mailbox) {
    reply(request, connection,
          HttpResponse::error(500, "Base.1.8.InternalError", "The answer cannot be deferred."));
    return;
  }
  Pending& pending = watchClose(request, connection);
  pending.deferredId = nextDeferred_++;
  pending.outcome = outcome;
  deferred_[pending.deferredId] = &pending;
  std::weak_ptr<Mailbox> mailbox = config_.mailbox;
  later([mailbox, self = this, id = pending.deferredId](HttpResponse response) {
    if (auto box = mailbox.lock()) {
      box->post([self, id, response = std::move(response)]() mutable {
        self->resolve(id, std::move(response));
      });
    }
  });
}

void HttpSite::resolve(std::uint64_t id, HttpResponse response) {
  auto found = deferred_.find(id);
  if (found == deferred_.end()) return;
  Pending* pending = found->second;
  deferred_.erase(found);
  Connection* connection = pending->connection;
  auto& list = connection->pending;
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->get() != pending) continue;
    std::unique_ptr<Pending> owned = std::move(*it);
    list.erase(it);
    reply(owned->request, connection, finish(owned->outcome, std::move(response)));
    return;
  }
}

void HttpSite::onHeldDone(int, short, void* connection) {
  // Frees the held request with its connection; onConnectionClosed drops our records.
  evhttp_connection_free(static_cast<Connection*>(connection)->evcon);
}

void HttpSite::reply(evhttp_request* request, Connection* connection, HttpResponse response) {
  std::chrono::microseconds delay = dice_.latency(config_.latency);
  if (delay.count() == 0) {
    ++stats_.answered;
    sendResponse(request, response);
    return;
  }
  auto pending = std::make_unique<Pending>();
  pending->site = this;
  pending->connection = connection;
  pending->request = request;
  pending->response = std::move(response);
  pending->timer = evtimer_new(base_, &HttpSite::onTimer, pending.get());
  timeval tv = toTimeval(delay);
  evtimer_add(pending->timer, &tv);
  connection->pending.push_back(std::move(pending));
}

void HttpSite::onTimer(int, short, void* pending) {
  auto* p = static_cast<Pending*>(pending);
  p->site->finishTimer(p);
}

void HttpSite::finishTimer(Pending* pending) {
  auto& list = pending->connection->pending;
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->get() != pending) continue;
    std::unique_ptr<Pending> owned = std::move(*it);
    list.erase(it);
    ++stats_.answered;
    // May close the connection (and erase its record) at once: touch nothing of it afterwards.
    sendResponse(owned->request, owned->response);
    return;
  }
}

void HttpSite::scheduleReset(Connection* connection) {
  // Deferred to a fresh loop turn: freeing a connection from inside its own request callback
  // would pull it out from under libevent.
  if (connection->resetTimer != nullptr) return;
  connection->resetTimer = evtimer_new(base_, &HttpSite::onReset, connection);
  timeval now{0, 0};
  evtimer_add(connection->resetTimer, &now);
}

void HttpSite::onReset(int, short, void* connection) {
  evhttp_connection* evcon = static_cast<Connection*>(connection)->evcon;
  abortOnClose(evcon);
  evhttp_connection_free(evcon);  // runs onConnectionClosed, which drops our record
}

void HttpSite::onConnectionClosed(evhttp_connection* evcon, void* self) {
  static_cast<HttpSite*>(self)->forget(evcon);
}

void HttpSite::forget(evhttp_connection* evcon) {
  auto found = connections_.find(evcon);
  if (found == connections_.end()) return;
  for (auto& pending : found->second->pending) {
    if (pending->deferredId != 0) deferred_.erase(pending->deferredId);
    // A request the client gave up on is detached from its connection and ours to free; one
    // still attached is freed by libevent with the connection.
    if (evhttp_request_get_connection(pending->request) == nullptr) {
      evhttp_request_free(pending->request);
    }
  }
  connections_.erase(found);
  --stats_.openConnections;
  --totals_->open;
}

}  // namespace sim::engine
