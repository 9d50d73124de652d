#include "integration/cli_fake_server.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "provisioner/cli/ctl.hpp"

namespace testing {
namespace {

constexpr const char* kReadyPath = "/__fake/ready";

std::string notFoundProblem(const std::string& path) {
  return R"({"type":"https://provisioner.dev/problems/route_not_found","title":"Not Found",)"
         R"("status":404,"code":"route_not_found","detail":"no route )" +
         path + R"(","request_id":"fake"})";
}

}  // namespace

std::string RecordedRequest::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::string RecordedRequest::param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

FakeApiServer::FakeApiServer() {
  // Catch-all routes, not a pre-routing handler: httplib reads the body only for routed handlers.
  auto handler = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
  server_.Get(".*", handler);
  server_.Post(".*", handler);
  server_.Put(".*", handler);
  server_.Patch(".*", handler);
  server_.Delete(".*", handler);
  port_ = server_.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("fake API server: cannot bind 127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  waitUntilServing();
}

FakeApiServer::~FakeApiServer() {
  server_.stop();
  thread_.join();
}

// The socket already listens after bind, so this request waits in the backlog until the accept
// loop runs; its answer proves the server is up (and stop() will find it running). No sleeping.
void FakeApiServer::waitUntilServing() const {
  httplib::Client probe("127.0.0.1", port_);
  probe.set_read_timeout(std::chrono::seconds(30));
  auto res = probe.Get(kReadyPath);
  if (!res || res->status != 200) throw std::runtime_error("fake API server did not start");
}

void FakeApiServer::answer(const std::string& method, const std::string& path,
                           CannedResponse response) {
  answerWith(method, path,
             [response = std::move(response)](const RecordedRequest&) { return response; });
}

void FakeApiServer::answerWith(const std::string& method, const std::string& path,
                               Responder responder) {
  std::lock_guard lock(mutex_);
  routes_[{method, path}] = std::move(responder);
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

// Records the request before its answer is sent, so a test sees it once the CLI has returned.
void FakeApiServer::handle(const httplib::Request& req, httplib::Response& res) {
  if (req.path == kReadyPath) {
    res.set_content("ok", "text/plain");
    return;
  }
  RecordedRequest recorded{req.method, req.path, req.target, req.body, req.headers, req.params};
  Responder responder;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(recorded);
    auto it = routes_.find({req.method, req.path});
    if (it != routes_.end()) responder = it->second;
  }
  CannedResponse response =
      responder ? responder(recorded)
                : CannedResponse{404, notFoundProblem(req.path), "application/problem+json"};
  res.status = response.status;
  res.set_content(response.body, response.contentType.c_str());
}

ClosedPort::ClosedPort() {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("cannot reserve a closed port");
  }
  port_ = ntohs(addr.sin_port);
}

ClosedPort::~ClosedPort() {
  if (fd_ >= 0) ::close(fd_);
}

CtlRun runCtlWithEnv(std::map<std::string, std::string> environment,
                     std::vector<std::string> args) {
  std::ostringstream out;
  std::ostringstream err;
  provisioner::cli::Environment env{std::move(environment)};
  int code = provisioner::cli::runCtl(args, out, err, env);
  return CtlRun{code, out.str(), err.str()};
}

CtlRun runCtlAt(const std::string& url, const std::string& token, std::vector<std::string> args) {
  return runCtlWithEnv({{"PROVISIONER_URL", url}, {"PROVISIONER_TOKEN", token}}, std::move(args));
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "provisionerctl-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  std::string file = path_ + "/" + name;
  std::ofstream(file, std::ios::binary) << content;
  return file;
}

}  // namespace testing
