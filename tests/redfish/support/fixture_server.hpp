// A scriptable Redfish BMC stand-in on 127.0.0.1 (cpp-httplib, HTTP or HTTPS) for transport tests:
// sessions, basic auth, scripted replies and held requests, and a record of what arrived.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fixture {

// Requests being handled at once; shareable by several servers to check a global limit.
struct ConcurrencyGauge {
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t current = 0;
  std::size_t peak = 0;
  std::size_t peakNow() {
    std::lock_guard lock(mutex);
    return peak;
  }
};

struct Reply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool hold = false;  // answer only after releaseHeld() (or the server stops)
};

struct Arrival {
  std::string method;
  std::string path;
  std::string token;   // X-Auth-Token, "" when none
  bool basic = false;  // carried an Authorization: Basic header
  std::chrono::steady_clock::time_point at;
};

struct PartSeen {
  std::string name;
  std::string fileName;
  std::string contentType;
  std::string content;
};

struct FixtureConfig {
  bool tls = false;
  int port = 0;  // 0: any free port
  std::string certPath;
  std::string keyPath;
  // Root links: kLinks (Links.Sessions), kServiceOnly (SessionService only), kNone (basic auth).
  enum class Sessions { kLinks, kServiceOnly, kNone } sessions = Sessions::kLinks;
  bool absoluteLocation = false;  // session Location as an absolute URL
  std::string username = "admin";
  std::string password = "s3cret-pw";
  // /redfish/v1/Slow holds until this many requests run at once (or 300 ms pass).
  std::size_t slowUntilConcurrent = 0;
  std::shared_ptr<ConcurrencyGauge> sharedGauge;  // in addition to the server's own
};

class FixtureServer {
 public:
  explicit FixtureServer(FixtureConfig config = {});
  ~FixtureServer();
  FixtureServer(const FixtureServer&) = delete;
  FixtureServer& operator=(const FixtureServer&) = delete;

  std::string baseUrl() const;
  const FixtureConfig& config() const;

  // Replies for `method path` (path without query), used in order before the default handling.
  void script(const std::string& method, const std::string& path, std::vector<Reply> replies);
  void expireSessions();           // every current token now gets 401
  void rejectTokens(bool reject);  // every token gets 401, even new ones
  void releaseHeld();

  std::vector<Arrival> arrivals() const;
  std::size_t count(const std::string& method, const std::string& path) const;
  std::size_t logins() const;  // successful session POSTs
  std::size_t liveSessions() const;
  std::size_t sessionDeletes() const;
  std::size_t peakConcurrent() const;
  std::vector<PartSeen> parts() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace fixture
