#include "fake_agent_service.hpp"

#include "agent/protocol.hpp"

namespace agent_testing {

using nlohmann::json;

void problem(httplib::Response& res, int status, const std::string& code) {
  res.status = status;
  if (code.empty()) {
    res.set_content("upstream trouble", "text/plain");
    return;
  }
  json body = {{"status", status}, {"code", code}, {"detail", "fake service says " + code}};
  res.set_content(body.dump(), "application/problem+json");
}

FakeAgentService::FakeAgentService() : server_(std::make_unique<httplib::Server>()) {
  start();
}

FakeAgentService::FakeAgentService(const std::string& cert_path, const std::string& key_path)
    : server_(std::make_unique<httplib::SSLServer>(cert_path.c_str(), key_path.c_str())),
      tls_(true) {
  start();
}

void FakeAgentService::start() {
  agent::Task task;
  task.id = kTaskId;
  task.kind = agent::TaskKind::kBurnIn;
  task.plan = agent::defaultBurnInPlan();
  task_ = agent::toJson(task);
  const std::string node = R"(/api/v1/agent/nodes/42)";
  server_->Post(node + "/register",
                [this](const auto& req, auto& res) { route("register", req, res); });
  server_->Get(node + "/task", [this](const auto& req, auto& res) { route("task", req, res); });
  server_->Post(node + R"(/tasks/(\d+)/progress)",
                [this](const auto& req, auto& res) { route("progress", req, res); });
  server_->Post(node + R"(/tasks/(\d+)/result)",
                [this](const auto& req, auto& res) { route("result", req, res); });
  port_ = server_->bind_to_any_port("127.0.0.1");
  // The socket listens once bound: clients may connect before the accept loop runs.
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

FakeAgentService::~FakeAgentService() {
  server_->stop();
  thread_.join();
}

void FakeAgentService::script(const std::string& route, ScriptedAnswer answer) {
  std::lock_guard lock(mutex_);
  scripts_[route].push_back(std::move(answer));
}

void FakeAgentService::setTask(json task) {
  std::lock_guard lock(mutex_);
  task_ = std::move(task);
}

void FakeAgentService::setTaskBody(std::string raw) {
  std::lock_guard lock(mutex_);
  raw_task_ = std::move(raw);
}

void FakeAgentService::setVerdict(std::string state, json verdict) {
  std::lock_guard lock(mutex_);
  state_ = std::move(state);
  verdict_ = std::move(verdict);
}

FakeAgentService::Record FakeAgentService::record() {
  std::lock_guard lock(mutex_);
  return record_;
}

void FakeAgentService::route(const std::string& name, const httplib::Request& req,
                             httplib::Response& res) {
  std::lock_guard lock(mutex_);
  record_.calls.push_back(name);
  std::string auth = req.get_header_value("Authorization");
  record_.bearer.push_back(auth.starts_with("Bearer ") ? auth.substr(7) : auth);
  record_.idempotency_keys.push_back(req.get_header_value("Idempotency-Key"));
  auto& queue = scripts_[name];
  if (queue.empty() || queue.front().apply_first) {
    if (!authorize(name, req, res)) return;
    handle(name, req, res);
  }
  if (queue.empty()) return;
  ScriptedAnswer answer = queue.front();
  queue.pop_front();
  problem(res, answer.status, answer.code);
  if (!answer.retry_after.empty()) res.set_header("Retry-After", answer.retry_after);
}

bool FakeAgentService::authorize(const std::string& name, const httplib::Request& req,
                                 httplib::Response& res) {
  const std::string& token = record_.bearer.back();
  if (name == "register") {
    if (token != kBootToken) {
      problem(res, 401, "agent_token_unknown");
      return false;
    }
    if (boot_token_used_) {
      problem(res, 401, "agent_token_used");
      return false;
    }
    return true;
  }
  if (token != kSessionToken) {
    problem(res, 401, "agent_token_unknown");
    return false;
  }
  if (req.matches.size() > 1 && req.matches[1] != std::to_string(kTaskId)) {
    problem(res, 404, "task_not_found");
    return false;
  }
  return true;
}

void FakeAgentService::handle(const std::string& name, const httplib::Request& req,
                              httplib::Response& res) {
  if (name == "register") return handleRegister(req, res);
  if (name == "result") return handleResult(req, res);
  if (name == "task") {
    res.set_content(raw_task_.empty() ? task_.dump() : raw_task_, "application/json");
    return;
  }
  json body = json::parse(req.body, nullptr, false);
  auto progress = agent::parseProgress(body);
  if (!progress) {
    record_.invalid.push_back("progress: " + progress.error().message);
    return problem(res, 400, progress.error().code);
  }
  record_.progress.push_back(body);
  res.status = 204;
}

void FakeAgentService::handleRegister(const httplib::Request& req, httplib::Response& res) {
  json body = json::parse(req.body, nullptr, false);
  auto facts = agent::parseFacts(body);
  if (!facts) {
    record_.invalid.push_back("facts: " + facts.error().message);
    return problem(res, 400, facts.error().code);
  }
  boot_token_used_ = true;
  record_.facts = body;
  json answer = {{"node_id", 42}, {"task_id", kTaskId}, {"session_token", kSessionToken}};
  res.set_content(answer.dump(), "application/json");
}

void FakeAgentService::handleResult(const httplib::Request& req, httplib::Response& res) {
  if (!task_open_) return problem(res, 409, "task_not_open");
  json body = json::parse(req.body, nullptr, false);
  auto result = agent::parseTaskResult(body);
  if (!result) {
    record_.invalid.push_back("result: " + result.error().message);
    return problem(res, 400, result.error().code);
  }
  task_open_ = false;
  record_.results.push_back(body);
  std::string state = result->error.empty() ? state_ : "error";
  json answer = {{"task_id", kTaskId}, {"state", state}, {"verdict", verdict_}};
  res.set_content(answer.dump(), "application/json");
}

}  // namespace agent_testing
