#include "redfish/support/fixture_server.hpp"

#include <httplib.h>
#include <openssl/evp.h>

#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>

namespace fixture {
namespace {

constexpr auto kHoldLimit = std::chrono::seconds(10);
constexpr auto kSlowLimit = std::chrono::milliseconds(300);  // a slow BMC, not a hang
constexpr const char* kSessions = "/redfish/v1/SessionService/Sessions";

std::string base64(const std::string& text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                               reinterpret_cast<const unsigned char*>(text.data()),
                               static_cast<int>(text.size()));
  out.resize(static_cast<std::size_t>(length));
  return out;
}

void enter(ConcurrencyGauge& gauge) {
  std::lock_guard lock(gauge.mutex);
  gauge.peak = std::max(gauge.peak, ++gauge.current);
  gauge.changed.notify_all();
}

void leave(ConcurrencyGauge& gauge) {
  std::lock_guard lock(gauge.mutex);
  --gauge.current;
  gauge.changed.notify_all();
}

void json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

}  // namespace

struct FixtureServer::State {
  FixtureConfig config;
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  int port = 0;
  ConcurrencyGauge gauge;

  mutable std::mutex mutex;
  std::condition_variable released;
  bool releaseAll = false;
  std::map<std::string, std::vector<Reply>> scripts;  // "METHOD path" -> replies left
  std::vector<Arrival> arrivals;
  std::set<std::string> tokens;
  std::map<std::string, std::string> sessionOfToken;  // token -> session path
  bool rejectTokens = false;
  std::size_t logins = 0;
  std::size_t deletes = 0;
  std::size_t nextSession = 1;
  std::vector<PartSeen> parts;

  void handle(const httplib::Request& req, httplib::Response& res);
  bool scripted(const httplib::Request& req, httplib::Response& res);
  bool authorised(const httplib::Request& req);
  void root(httplib::Response& res);
  void login(const httplib::Request& req, httplib::Response& res);
  void logout(const httplib::Request& req, httplib::Response& res);
  void slow(httplib::Response& res);
  void upload(const httplib::Request& req, httplib::Response& res);
  void resource(const httplib::Request& req, httplib::Response& res);
};

FixtureServer::FixtureServer(FixtureConfig config) : state_(std::make_shared<State>()) {
  state_->config = std::move(config);
  if (state_->config.tls) {
    state_->server = std::make_unique<httplib::SSLServer>(state_->config.certPath.c_str(),
                                                          state_->config.keyPath.c_str());
  } else {
    state_->server = std::make_unique<httplib::Server>();
  }
  httplib::Server& server = *state_->server;
  if (!server.is_valid()) throw std::runtime_error("fixture server: invalid TLS setup");
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };
  server.set_keep_alive_max_count(1000);
  server.set_tcp_nodelay(true);  // else Nagle + delayed ACK add 40 ms per response
  auto handler = [state = state_.get()](const httplib::Request& req, httplib::Response& res) {
    state->handle(req, res);
  };
  server.Get(".*", handler);
  server.Post(".*", handler);
  server.Patch(".*", handler);
  server.Put(".*", handler);
  server.Delete(".*", handler);
  state_->port = state_->config.port == 0 ? server.bind_to_any_port("127.0.0.1")
                 : server.bind_to_port("127.0.0.1", state_->config.port) ? state_->config.port
                                                                         : -1;
  if (state_->port <= 0) throw std::runtime_error("fixture server: bind failed");
  state_->thread = std::thread([state = state_.get()] { state->server->listen_after_bind(); });
  // httplib's stop() is a no-op until the accept loop runs, so a server stopped too early would
  // never return: wait for the loop (it starts within microseconds).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server.is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
}

FixtureServer::~FixtureServer() {
  releaseHeld();
  state_->server->stop();
  if (state_->thread.joinable()) state_->thread.join();
}

std::string FixtureServer::baseUrl() const {
  return std::string(state_->config.tls ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(state_->port);
}

const FixtureConfig& FixtureServer::config() const {
  return state_->config;
}

void FixtureServer::script(const std::string& method, const std::string& path,
                           std::vector<Reply> replies) {
  std::lock_guard lock(state_->mutex);
  auto& queue = state_->scripts[method + " " + path];
  queue.insert(queue.end(), replies.begin(), replies.end());
}

void FixtureServer::expireSessions() {
  std::lock_guard lock(state_->mutex);
  state_->tokens.clear();
  state_->sessionOfToken.clear();
}

void FixtureServer::rejectTokens(bool reject) {
  std::lock_guard lock(state_->mutex);
  state_->rejectTokens = reject;
}

void FixtureServer::releaseHeld() {
  std::lock_guard lock(state_->mutex);
  state_->releaseAll = true;
  state_->released.notify_all();
}

std::vector<Arrival> FixtureServer::arrivals() const {
  std::lock_guard lock(state_->mutex);
  return state_->arrivals;
}

std::size_t FixtureServer::count(const std::string& method, const std::string& path) const {
  std::lock_guard lock(state_->mutex);
  std::size_t n = 0;
  for (const auto& arrival : state_->arrivals)
    n += arrival.method == method && arrival.path == path;
  return n;
}

std::size_t FixtureServer::logins() const {
  std::lock_guard lock(state_->mutex);
  return state_->logins;
}

std::size_t FixtureServer::liveSessions() const {
  std::lock_guard lock(state_->mutex);
  return state_->tokens.size();
}

std::size_t FixtureServer::sessionDeletes() const {
  std::lock_guard lock(state_->mutex);
  return state_->deletes;
}

std::size_t FixtureServer::peakConcurrent() const {
  return state_->gauge.peakNow();
}

std::vector<PartSeen> FixtureServer::parts() const {
  std::lock_guard lock(state_->mutex);
  return state_->parts;
}

void FixtureServer::State::handle(const httplib::Request& req, httplib::Response& res) {
  enter(gauge);
  if (config.sharedGauge) enter(*config.sharedGauge);
  {
    std::lock_guard lock(mutex);
    std::string authorization = req.get_header_value("Authorization");
    arrivals.push_back(Arrival{req.method, req.path, req.get_header_value("X-Auth-Token"),
                               authorization.rfind("Basic ", 0) == 0,
                               std::chrono::steady_clock::now()});
  }
  if (!scripted(req, res)) {
    if (req.method == "GET" && (req.path == "/redfish/v1" || req.path == "/redfish/v1/")) {
      root(res);
    } else if (req.method == "GET" && req.path == "/redfish/v1/SessionService" &&
               config.sessions == FixtureConfig::Sessions::kServiceOnly) {
      json(res, 200, {{"Sessions", {{"@odata.id", kSessions}}}});  // some BMCs allow this
    } else if (req.method == "POST" && req.path == kSessions) {
      login(req, res);
    } else if (!authorised(req)) {
      json(res, 401, {{"error", {{"message", "unauthorised"}}}});
    } else if (req.method == "DELETE" && req.path.rfind(std::string(kSessions) + "/", 0) == 0) {
      logout(req, res);
    } else if (req.path == "/redfish/v1/Slow") {
      slow(res);
    } else if (req.path == "/redfish/v1/Upload") {
      upload(req, res);
    } else {
      resource(req, res);
    }
  }
  if (config.sharedGauge) leave(*config.sharedGauge);
  leave(gauge);
}

bool FixtureServer::State::scripted(const httplib::Request& req, httplib::Response& res) {
  std::unique_lock lock(mutex);
  auto found = scripts.find(req.method + " " + req.path);
  if (found == scripts.end() || found->second.empty()) return false;
  Reply reply = found->second.front();
  found->second.erase(found->second.begin());
  if (reply.hold) released.wait_for(lock, kHoldLimit, [this] { return releaseAll; });
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers) res.set_header(name, value);
  res.set_content(reply.body, "application/json");
  return true;
}

bool FixtureServer::State::authorised(const httplib::Request& req) {
  std::lock_guard lock(mutex);
  std::string token = req.get_header_value("X-Auth-Token");
  if (!token.empty()) return !rejectTokens && tokens.count(token) > 0;
  if (config.sessions != FixtureConfig::Sessions::kNone) return false;  // sessions only
  return req.get_header_value("Authorization") ==
         "Basic " + base64(config.username + ":" + config.password);
}

void FixtureServer::State::root(httplib::Response& res) {
  nlohmann::json body = {{"@odata.id", "/redfish/v1"}, {"RedfishVersion", "1.15.0"}};
  if (config.sessions != FixtureConfig::Sessions::kNone) {
    body["SessionService"] = {{"@odata.id", "/redfish/v1/SessionService"}};
  }
  if (config.sessions == FixtureConfig::Sessions::kLinks) {
    body["Links"] = {{"Sessions", {{"@odata.id", kSessions}}}};
  }
  json(res, 200, body);
}

void FixtureServer::State::login(const httplib::Request& req, httplib::Response& res) {
  auto body = nlohmann::json::parse(req.body, nullptr, false);
  bool ok = body.is_object() && body.value("UserName", "") == config.username &&
            body.value("Password", "") == config.password;
  if (!ok) return json(res, 401, {{"error", {{"message", "bad credentials"}}}});
  std::lock_guard lock(mutex);
  std::string id = std::to_string(nextSession++);
  std::string token = "token-" + id + "-" + std::to_string(port);
  std::string path = std::string(kSessions) + "/" + id;
  tokens.insert(token);
  sessionOfToken[token] = path;
  logins++;
  std::string scheme = config.tls ? "https" : "http";
  res.set_header("X-Auth-Token", token);
  res.set_header("Location", config.absoluteLocation
                                 ? scheme + "://127.0.0.1:" + std::to_string(port) + path
                                 : path);
  json(res, 201, {{"@odata.id", path}, {"UserName", config.username}});
}

void FixtureServer::State::logout(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex);
  for (auto it = sessionOfToken.begin(); it != sessionOfToken.end(); ++it) {
    if (it->second != req.path) continue;
    tokens.erase(it->first);
    sessionOfToken.erase(it);
    deletes++;
    res.status = 204;
    return;
  }
  json(res, 404, {{"error", {{"message", "no such session"}}}});
}

void FixtureServer::State::slow(httplib::Response& res) {
  ConcurrencyGauge& watched = config.sharedGauge ? *config.sharedGauge : gauge;
  std::unique_lock lock(watched.mutex);
  watched.changed.wait_for(lock, kSlowLimit,
                           [&] { return watched.current >= config.slowUntilConcurrent; });
  lock.unlock();
  json(res, 200, {{"@odata.id", "/redfish/v1/Slow"}});
}

void FixtureServer::State::upload(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex);
  for (const auto& [name, file] : req.files) {
    parts.push_back(PartSeen{file.name, file.filename, file.content_type, file.content});
  }
  res.status = 202;
  res.set_header("Location", "/redfish/v1/TaskService/Tasks/1");
}

void FixtureServer::State::resource(const httplib::Request& req, httplib::Response& res) {
  if (req.has_param("bytes")) {
    std::size_t bytes = std::stoul(req.get_param_value("bytes"));
    res.status = 200;
    res.set_content(std::string(bytes, 'x'), "application/octet-stream");
    return;
  }
  json(res, 200,
       {{"@odata.id", req.path},
        {"Method", req.method},
        {"Body", req.body},
        {"ContentType", req.get_header_value("Content-Type")},
        {"Accept", req.get_header_value("Accept")},
        {"ODataVersion", req.get_header_value("OData-Version")},
        {"IfMatch", req.get_header_value("If-Match")}});
}

}  // namespace fixture
