// A fake provisioner REST API for CLI tests: answers canned responses, records every request.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <httplib.h>

namespace testing {

struct RecordedRequest {
  std::string method;
  std::string path;    // decoded, without the query
  std::string target;  // as sent: path and query
  std::string body;
  httplib::Headers headers;
  httplib::Params params;

  std::string header(const std::string& name) const;
  std::string param(const std::string& name) const;
};

struct CannedResponse {
  int status = 200;
  std::string body;
  std::string contentType = "application/json";
};

// Listens on 127.0.0.1 on an ephemeral port from construction to destruction.
class FakeApiServer {
 public:
  using Responder = std::function<CannedResponse(const RecordedRequest&)>;

  FakeApiServer();
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // METHOD + exact path (no query) -> response. Unrouted requests get a 404 route_not_found.
  void answer(const std::string& method, const std::string& path, CannedResponse response);
  void answerWith(const std::string& method, const std::string& path, Responder responder);

  std::vector<RecordedRequest> requests() const;

 private:
  void handle(const httplib::Request& req, httplib::Response& res);
  void waitUntilServing() const;

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Responder> routes_;
  std::vector<RecordedRequest> requests_;
};

// A port bound but never listened on: connecting to it is refused, deterministically, for as
// long as this object lives (no other process can take the port meanwhile).
class ClosedPort {
 public:
  ClosedPort();
  ~ClosedPort();
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// One in-process provisionerctl run against `url` with bearer `token`; nothing read from $HOME.
struct CtlRun {
  int code = -1;
  std::string out;
  std::string err;
};
CtlRun runCtlAt(const std::string& url, const std::string& token, std::vector<std::string> args);
CtlRun runCtlWithEnv(std::map<std::string, std::string> environment, std::vector<std::string> args);

// A scratch directory removed with its files at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

}  // namespace testing
