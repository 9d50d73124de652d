// The agent's side of the agent HTTP API (register, task, progress, result) with retries and
// jittered exponential back-off on connection errors, timeouts, 429 and 5xx.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "common/result.hpp"

namespace agent {

// Waits between attempts; injectable so tests do not wait.
using Sleeper = std::function<void(std::chrono::milliseconds)>;

struct RetryPolicy {
  int max_attempts = 8;
  std::chrono::milliseconds base{500};
  std::chrono::milliseconds cap{30000};
};

// The wait after failed attempt `attempt` (1-based): "equal jitter", half of
// min(cap, base * 2^(attempt-1)) plus a uniform share (`unit_random` in [0, 1)) of the other half.
std::chrono::milliseconds backoffDelay(int attempt, const RetryPolicy& policy, double unit_random);

struct ServiceClientOptions {
  std::string base_url;  // http(s)://host[:port][/prefix]
  std::string node_id;
  std::string ca_file;  // PEM bundle for https; empty: the system's
  RetryPolicy retry;
  // Progress is best effort: a long outage must not stall the burn-in for minutes per report.
  int progress_attempts = 2;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds read_timeout{120000};
  Sleeper sleeper;                // empty: really sleep
  std::uint64_t jitter_seed = 0;  // 0: a random seed
  // Told about each retry (what failed, how long until the next attempt); never sees tokens.
  std::function<void(const std::string&)> on_retry;
};

struct Registration {
  std::int64_t node_id = 0;
  std::int64_t task_id = 0;
  std::string session_token;
};

struct ResultAck {
  std::int64_t task_id = 0;
  std::string state;         // "passed", "failed", "error"; empty when already_accepted
  std::string verdict_json;  // the service's verdict object, as sent
  // A retry after a lost answer got 409 task_not_open: the first attempt was taken.
  bool already_accepted = false;
};

// Work the service hands the resident monitor with a batch's answer (docs/health.md, "Actions").
struct ResidentTaskOrder {
  std::int64_t id = 0;
  std::string kind;  // "gpu_reset", "burn_in"
  std::string gpu_serial;
  nlohmann::json plan =
      nullptr;  // "burn_in": the burn-in plan to run, as sent (parsed when carried out)
};

// The service's answer to a health batch (the resident monitor).
struct HealthAck {
  int samples = 0;
  int duplicates = 0;              // readings the service already had (a retried batch)
  bool rotate_credential = false;  // an operator asked for a new credential
  std::vector<ResidentTaskOrder> tasks;
};

class ServiceClient {
 public:
  // InvalidArgument "invalid_service_url" / "invalid_node_id" on bad options.
  static common::Result<ServiceClient> create(ServiceClientOptions options);
  ServiceClient(ServiceClient&&) noexcept;
  ServiceClient& operator=(ServiceClient&&) noexcept;
  ~ServiceClient();

  // Errors: the service's problem code (e.g. "agent_token_used") with the matching kind, or
  // Unavailable "service_unreachable" once the attempts are spent.
  common::Result<Registration> registerNode(const std::string& boot_token, const Facts& facts);
  // Uses the session token from registerNode() (or setSessionToken()).
  common::Result<Task> fetchTask();
  common::Result<void> postProgress(std::int64_t task_id, const Progress& progress);
  common::Result<ResultAck> postResult(const TaskResult& result);

  // The burn-in's enrolment for the node's monitor credential (docs/health.md), with the session
  // token; returns the secret.
  common::Result<std::string> enrollCredential();
  // One health batch with the monitor credential, at most `attempts` tries (the monitor keeps
  // what is not taken on disk and tries again next interval).
  common::Result<HealthAck> postHealth(const std::string& batch_json, const std::string& credential,
                                       int attempts);
  // A resident task's outcome, with the monitor credential. A retry after a lost answer is
  // taken as the same report.
  // `done_at`: when it finished, on this node's clock (empty: not sent). `details`: more fields of
  // the report (a burn-in's "result" and "facts").
  common::Result<void> reportResidentTask(std::int64_t task_id, bool succeeded,
                                          const std::string& message, const std::string& done_at,
                                          const std::string& credential,
                                          const nlohmann::json& details = nlohmann::json::object());
  // The agent's half of a rotation: the successor of `credential`.
  common::Result<std::string> rotateCredential(const std::string& credential);

  void setSessionToken(std::string token);

 private:
  struct Impl;
  explicit ServiceClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace agent
