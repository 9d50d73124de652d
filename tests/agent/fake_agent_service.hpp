// An in-memory fake of the service's agent API on an ephemeral 127.0.0.1 port: it answers what
// the test scripts (statuses per route), checks every body with the protocol parsers, and records
// what it got.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace agent_testing {

struct ScriptedAnswer {
  ScriptedAnswer(int status_code, std::string problem_code = {}, bool apply = false,
                 std::string retry = {})
      : status(status_code),
        code(std::move(problem_code)),
        apply_first(apply),
        retry_after(std::move(retry)) {}

  int status;
  std::string code;          // problem+json code; empty: a plain-text body
  bool apply_first = false;  // do the real work, then answer this (a lost response)
  std::string retry_after;   // Retry-After header, when set
};

class FakeAgentService {
 public:
  static constexpr const char* kBootToken = "boot_secret_1";
  static constexpr const char* kSessionToken = "agt_session_secret";
  static constexpr std::int64_t kTaskId = 7;

  FakeAgentService();
  // Over TLS with this certificate and key (PEM files).
  FakeAgentService(const std::string& cert_path, const std::string& key_path);
  ~FakeAgentService();

  std::string baseUrl() const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  }

  // Answers for the next calls to a route ("register", "task", "progress", "result"), in order.
  void script(const std::string& route, ScriptedAnswer answer);
  void setTask(nlohmann::json task);
  void setTaskBody(std::string raw);  // an answer that is not even JSON
  void setVerdict(std::string state, nlohmann::json verdict);

  struct Record {
    std::vector<std::string> calls;             // "register", "task", ... in arrival order
    std::vector<std::string> bearer;            // the token each call carried
    std::vector<std::string> idempotency_keys;  // each call's Idempotency-Key ("" when none)
    std::vector<nlohmann::json> progress;
    std::vector<nlohmann::json> results;  // accepted results
    nlohmann::json facts;
    std::vector<std::string> invalid;  // bodies the protocol parsers refused, with the reason
  };
  Record record();

 private:
  void route(const std::string& name, const httplib::Request& req, httplib::Response& res);
  bool authorize(const std::string& name, const httplib::Request& req, httplib::Response& res);
  void handle(const std::string& name, const httplib::Request& req, httplib::Response& res);
  void handleRegister(const httplib::Request& req, httplib::Response& res);
  void handleResult(const httplib::Request& req, httplib::Response& res);

  void start();

  std::unique_ptr<httplib::Server> server_;
  bool tls_ = false;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, std::deque<ScriptedAnswer>> scripts_;
  nlohmann::json task_;
  std::string raw_task_;
  std::string state_ = "passed";
  nlohmann::json verdict_ = {{"passed", true}, {"failures", nlohmann::json::array()}};
  bool boot_token_used_ = false;
  bool task_open_ = true;
  Record record_;
};

void problem(httplib::Response& res, int status, const std::string& code);

}  // namespace agent_testing
