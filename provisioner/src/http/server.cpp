#include "provisioner/http/server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include <httplib.h>
#include <spdlog/common.h>
#include <nlohmann/json.hpp>

#include "dispatcher.hpp"
#include "provisioner/http/logging.hpp"

namespace provisioner::http {
namespace {

// Any path, line breaks included (a percent-decoded %0A: "." would not match it, and the library
// would answer its own 404 instead of our 400 naming the segment).
constexpr const char* kAnyPath = "[\\s\\S]*";
constexpr std::uint64_t kMaxDrainBytes = 64ULL << 20;

// cpp-httplib's stop() does nothing before listening has begun. Closing the listening socket
// ourselves (svr_sock_ is protected for subclasses) makes stop() work at any moment: the accept
// loop sees it closed, leaves, and the thread pool then finishes every accepted connection.
class ClosableServer : public httplib::Server {
 public:
  void closeListener() {
    const auto sock = svr_sock_.exchange(INVALID_SOCKET);
    if (sock == INVALID_SOCKET) return;
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
};

// SO_REUSEADDR allows a quick restart; cpp-httplib's default SO_REUSEPORT would let a second
// instance bind the same port silently and share its traffic.
void reuseAddressOnly(socket_t sock) {
  int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

// cpp-httplib adds these to the request headers itself; a client may send them too, so handlers
// must not mistake either for a trustworthy address.
bool isPseudoHeader(const std::string& name) {
  return name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" ||
         name == "LOCAL_PORT";
}

IncomingRequest incomingFrom(const httplib::Request& req) {
  IncomingRequest incoming;
  incoming.method = req.method;
  incoming.path = req.path;
  for (const auto& [name, value] : req.headers) {
    if (!isPseudoHeader(name)) incoming.headers.emplace_back(name, value);
  }
  incoming.query.insert(req.params.begin(), req.params.end());
  for (const auto& [first, last] : req.ranges) incoming.ranges.emplace_back(first, last);
  return incoming;
}

// Streams a file body in pieces; cpp-httplib asks for the ranges a Range request wants.
void setFileContent(const Response& response, const httplib::Request& req, httplib::Response& res) {
  auto file = std::make_shared<std::ifstream>(response.file_path, std::ios::binary);
  res.set_header("Accept-Ranges", "bytes");
  // A 200 from the handler becomes 206 when the client asked for a range: the library decides.
  if (response.status == 200 && req.has_header("Range")) res.status = -1;
  res.set_content_provider(static_cast<std::size_t>(response.file_size), response.content_type,
                           [file](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             constexpr std::size_t kChunk = std::size_t{256} * 1024;
                             std::vector<char> buffer(std::min(length, kChunk));
                             file->clear();
                             file->seekg(static_cast<std::streamoff>(offset));
                             file->read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
                             const auto got = static_cast<std::size_t>(file->gcount());
                             return got > 0 && sink.write(buffer.data(), got);
                           });
}

// A Range header applies to file downloads only: cpp-httplib slices any body whose request named
// ranges (a JSON answer cut to 11 bytes), so the ranges are dropped for everything else. The
// library handed its own, non-const Request to the handler; clearing it there is what it reads.
void ignoreRanges(const httplib::Request& req) {
  const_cast<httplib::Request&>(req).ranges.clear();
}

void writeResponse(const Response& response, const httplib::Request& req, httplib::Response& res) {
  res.status = response.status;
  for (const auto& [name, value] : response.headers) res.set_header(name, value);
  if (!response.file_path.empty()) {
    setFileContent(response, req, res);
  } else {
    ignoreRanges(req);
    res.set_content(response.body, response.content_type);
  }
}

// RFC 9112 6.3: a request with neither Content-Length nor Transfer-Encoding has no body. Read as
// one that ends with the connection, it would hang until the read timeout.
bool hasBody(const httplib::Request& req) {
  return req.has_header("Content-Length") || req.has_header("Transfer-Encoding");
}

// A declared Content-Length over `limit`: refused without reading the body.
bool declaredOver(const httplib::Request& req, std::uint64_t limit) {
  if (!req.has_header("Content-Length")) return false;
  const std::string value = req.get_header_value("Content-Length");
  std::uint64_t length = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
  return ec != std::errc() || end != value.data() + value.size() || length > limit;
}

// Reads the body into `incoming`, keeping at most `limit` bytes. Over the limit, the rest is
// still read and dropped so the connection stays usable (cpp-httplib skips a declared
// Content-Length over set_payload_max_length itself; chunked and decompressed bodies end here).
// A failed read leaves the library's verdict in res.status (413 over the declared limit, 400
// broken framing, 415 unknown Content-Encoding).
void readBody(const httplib::Request& req, const httplib::Response& res,
              const httplib::ContentReader& reader, std::size_t limit, IncomingRequest& incoming) {
  bool ok = false;
  if (req.is_multipart_form_data()) {
    incoming.body_unsupported = true;
    ok = reader([](const httplib::MultipartFormData&) { return true; },
                [](const char*, std::size_t) { return true; });
  } else {
    ok = reader([&incoming, limit](const char* data, std::size_t size) {
      if (incoming.body_too_large || incoming.body.size() + size > limit) {
        incoming.body_too_large = true;
        incoming.body.clear();
      } else {
        incoming.body.append(data, size);
      }
      return true;
    });
  }
  if (ok) return;
  if (res.status == 413) {
    incoming.body_too_large = true;
  } else {
    incoming.transport_status = res.status >= 400 ? res.status : 400;
  }
}

}  // namespace

struct ApiServer::Impl {
  Impl(ServerOptions opts, std::shared_ptr<Authenticator> authenticator,
       std::shared_ptr<AuditSink> audit, std::shared_ptr<MetricsRegistry> metrics)
      : options(std::move(opts)),
        dispatcher(std::move(authenticator), std::move(audit), std::move(metrics)) {}
  ~Impl() { server.closeListener(); }

  void configure();
  void serve(const httplib::Request& req, httplib::Response& res) const {
    writeResponse(dispatcher.dispatch(incomingFrom(req)), req, res);
  }
  void serveWithBody(const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& reader) const {
    if (dispatcher.streamsBody(req.method, req.path)) return serveStreamed(req, res, reader);
    IncomingRequest incoming = incomingFrom(req);
    bool body_left_unread = false;
    // A modestly oversized body is read and dropped (the client gets its 413 and keeps the
    // connection); a huge one is refused unread and the connection closed.
    if (declaredOver(req, std::max<std::uint64_t>(options.max_body_bytes, kMaxDrainBytes))) {
      incoming.body_too_large = true;
      body_left_unread = true;
    } else if (hasBody(req)) {
      readBody(req, res, reader, options.max_body_bytes, incoming);
    }
    writeResponse(dispatcher.dispatch(std::move(incoming)), req, res);
    if (body_left_unread) res.set_header("Connection", "close");
  }
  // The handler pulls the body; if it never does (refused before reading), the connection is
  // closed so the unread bytes are not taken for the next request.
  void serveStreamed(const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& reader) const {
    IncomingRequest incoming = incomingFrom(req);
    bool consumed = false;
    const std::uint64_t limit = options.max_stream_bytes;
    const bool body = hasBody(req);
    incoming.stream = [&reader, &consumed, limit, body](const BodySink& sink) {
      consumed = true;
      if (!body) return true;  // nothing to read: an empty stream
      std::uint64_t total = 0;
      return reader([&sink, &total, limit](const char* data, std::size_t size) {
        total += size;
        return total <= limit && sink(std::string_view(data, size));
      });
    };
    if (declaredOver(req, limit)) incoming.body_too_large = true;
    writeResponse(dispatcher.dispatch(std::move(incoming)), req, res);
    if (!consumed) res.set_header("Connection", "close");
  }
  // A Range header the library could not parse (it answers 416 before routing): ignored, as RFC
  // 9110 14.2 allows, on everything but a file download, which keeps its 416. Only for methods
  // without a body (the library has not read one).
  bool answerDespiteBadRange(const httplib::Request& req, httplib::Response& res) const {
    if (req.method != "GET" && req.method != "HEAD") return false;
    Response response = dispatcher.dispatch(incomingFrom(req));
    if (!response.file_path.empty()) return false;
    res.headers.clear();
    writeResponse(response, req, res);
    return true;
  }
  // Answers with `status` decided by the library (unparsable request, URI too long, a throw).
  void answerTransportError(const httplib::Request& req, httplib::Response& res, int status) const {
    IncomingRequest incoming = incomingFrom(req);
    incoming.transport_status = status;
    res.headers.clear();
    writeResponse(dispatcher.dispatch(std::move(incoming)), req, res);
  }

  ServerOptions options;
  Dispatcher dispatcher;
  ClosableServer server;
  std::mutex bind_mutex;
  bool configured = false;
  int bound_port = -1;
  std::atomic<bool> stop_requested{false};
};

void ApiServer::Impl::configure() {
  const std::size_t threads = std::max<std::size_t>(1, options.threads);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_socket_options(reuseAddressOnly);
  // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to small responses.
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(options.keep_alive_max_requests);
  // Buffered routes enforce max_body_bytes themselves (readBody, declaredOver).
  server.set_payload_max_length(static_cast<std::size_t>(
      std::max<std::uint64_t>(options.max_body_bytes, options.max_stream_bytes)));
  server.set_keep_alive_timeout(options.keep_alive_timeout_s);
  server.set_read_timeout(options.read_timeout_s, 0);
  server.set_write_timeout(options.write_timeout_s, 0);

  auto plain = [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); };
  auto with_body = [this](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader) {
    serveWithBody(req, res, reader);
  };
  server.Get(kAnyPath, plain);  // HEAD arrives here too
  server.Options(kAnyPath, plain);
  server.Post(kAnyPath, with_body);
  server.Put(kAnyPath, with_body);
  server.Patch(kAnyPath, with_body);
  server.Delete(kAnyPath, with_body);
  // Called for every status >= 400, ours included: only answers without our request id
  // header are the library's own, and only those get replaced by a problem.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) {
        if (res.has_header(std::string(kRequestIdHeader))) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        if (res.status == 416 && answerDespiteBadRange(req, res)) {
          return httplib::Server::HandlerResponse::Handled;
        }
        answerTransportError(req, res, res.status);
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler(
      [this](const httplib::Request& req, httplib::Response& res, const std::exception_ptr&) {
        answerTransportError(req, res, 500);
      });
  configured = true;
}

ApiServer::ApiServer(ServerOptions options, std::shared_ptr<Authenticator> authenticator,
                     std::shared_ptr<AuditSink> audit, std::shared_ptr<MetricsRegistry> metrics)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(authenticator), std::move(audit),
                                   std::move(metrics))) {}

ApiServer::~ApiServer() = default;

void ApiServer::addRoute(RouteSpec spec) {
  auto added = impl_->dispatcher.addRoute(std::move(spec));
  if (!added) {
    logEvent(spdlog::level::critical, "invalid route", {{"error", added.error().message}});
    std::abort();  // a programming error in the route table: fail at startup, loudly
  }
}

common::Result<int> ApiServer::bind() {
  std::lock_guard lock(impl_->bind_mutex);
  if (impl_->bound_port >= 0) return impl_->bound_port;
  if (!impl_->configured) impl_->configure();
  const auto& host = impl_->options.host;
  const int requested = impl_->options.port;
  errno = 0;
  const int port = requested == 0 ? impl_->server.bind_to_any_port(host)
                                  : (impl_->server.bind_to_port(host, requested) ? requested : -1);
  if (port < 0) {
    const int error = errno;
    const std::string where = host + ":" + std::to_string(requested);
    if (error == EADDRINUSE) {
      return common::unavailable("address_in_use", where + " is already in use");
    }
    return common::unavailable(
        "bind_failed",
        "cannot listen on " + where + (error != 0 ? std::string(": ") + std::strerror(error) : ""));
  }
  impl_->bound_port = port;
  return port;
}

void ApiServer::run() {
  if (impl_->stop_requested.load()) return;
  auto port = bind();
  if (!port) {
    logEvent(spdlog::level::err, "cannot serve", {{"error", port.error().message}});
    return;
  }
  if (impl_->stop_requested.load()) {  // stop() ran during bind(), before the socket existed
    impl_->server.closeListener();
    return;
  }
  logEvent(spdlog::level::info, "listening",
           {{"host", impl_->options.host}, {"port", *port}, {"threads", impl_->options.threads}});
  impl_->server.listen_after_bind();  // returns at once if stop() closed the listener already
  logEvent(spdlog::level::info, "stopped", nlohmann::json::object());
}

void ApiServer::stop() {
  impl_->stop_requested.store(true);
  impl_->server.closeListener();
}

RouteSpec metricsRoute(std::shared_ptr<MetricsRegistry> metrics) {
  RouteSpec spec;
  spec.method = Method::kGet;
  spec.pattern = "/metrics";
  spec.name = "metrics";
  spec.permission = Permission::kPublic;
  spec.accepts = {};
  spec.handler = [metrics = std::move(metrics)](const Request&) -> common::Result<Response> {
    Response response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = metrics->render();
    return response;
  };
  return spec;
}

}  // namespace provisioner::http
