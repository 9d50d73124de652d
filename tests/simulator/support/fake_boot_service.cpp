#include "simulator/support/fake_boot_service.hpp"

#include "agent/protocol.hpp"
#include "common/secret_box.hpp"
#include "images/ipxe.hpp"

namespace sim::test {

using nlohmann::json;

namespace {

constexpr const char* kSessionToken = "agt_sim_session";

void problem(httplib::Response& res, int status, const std::string& code) {
  res.status = status;
  res.set_content(json{{"status", status}, {"code", code}, {"detail", code}}.dump(),
                  "application/problem+json");
}

std::string bearer(const httplib::Request& req) {
  std::string auth = req.get_header_value("Authorization");
  return auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : auth;
}

}  // namespace

FakeBootService::FakeBootService()
    : kernel_(std::string(4096, 'K') + "vmlinuz"), initrd_(std::string(70000, 'I') + "initrd") {
  server_.Get("/boot/ipxe", [this](const auto& req, auto& res) { serveScript(req, res); });
  server_.Get(R"(/boot/artifacts/([0-9a-f]{64}))",
              [this](const auto& req, auto& res) { serveArtifact(req, res); });
  const std::string node = std::string("/api/v1/agent/nodes/") + kNodeId;
  server_.Post(node + "/register",
               [this](const auto& req, auto& res) { agentCall("register", req, res); });
  server_.Get(node + "/task", [this](const auto& req, auto& res) { agentCall("task", req, res); });
  server_.Post(node + R"(/tasks/(\d+)/progress)",
               [this](const auto& req, auto& res) { agentCall("progress", req, res); });
  server_.Post(node + R"(/tasks/(\d+)/result)",
               [this](const auto& req, auto& res) { agentCall("result", req, res); });
  server_.Post(node + "/credential",
               [this](const auto& req, auto& res) { agentCall("credential", req, res); });
  server_.Post(node + "/health", [this](const auto& req, auto& res) { postHealth(req, res); });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
}

FakeBootService::~FakeBootService() {
  server_.stop();
  thread_.join();
}

void FakeBootService::answerWaitScripts(int count, int seconds) {
  std::lock_guard lock(mutex_);
  waitScripts_ = count;
  waitSeconds_ = seconds;
}

void FakeBootService::answerLocalDisk() {
  std::lock_guard lock(mutex_);
  localDisk_ = true;
}

void FakeBootService::corruptKernel() {
  std::lock_guard lock(mutex_);
  corrupt_ = true;
}

void FakeBootService::failArtifacts(int count) {
  std::lock_guard lock(mutex_);
  failArtifacts_ = count;
}

FakeBootService::Record FakeBootService::record() const {
  std::lock_guard lock(mutex_);
  return record_;
}

void FakeBootService::serveScript(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  const std::string mac = req.get_param_value("mac");
  record_.scriptMacs.push_back(mac);
  std::string text;
  if (localDisk_) {
    text = images::renderLocalBootScript("node " + std::string(kNodeId) + " has nothing to do");
  } else if (waitScripts_ > 0) {
    --waitScripts_;
    text = images::renderRetryScript("not ready yet", waitSeconds_,
                                     baseUrl() + "/boot/ipxe?mac=${net0/mac}");
  } else {
    std::string token = "boot_tok_" + std::to_string(record_.mintedTokens.size() + 1);
    record_.mintedTokens.push_back(token);
    images::BootScriptSpec spec;
    spec.label = "node 7: sim-burnin 1.0";
    spec.kernel_sha256 = common::sha256Hex(kernel_);
    spec.initrd_sha256 = common::sha256Hex(initrd_);
    spec.kernel_url = baseUrl() + "/boot/artifacts/" + spec.kernel_sha256;
    spec.initrd_url = baseUrl() + "/boot/artifacts/" + spec.initrd_sha256;
    spec.image_kernel_args = "console=ttyS0 quiet";
    spec.kernel_params = {{"provisioner.url", baseUrl()},
                          {"provisioner.node", kNodeId},
                          {"provisioner.task", std::to_string(kTaskId)},
                          {"provisioner.token", token}};
    text = images::renderBootScript(spec).value();
  }
  res.set_content(text, "text/plain");
}

void FakeBootService::serveArtifact(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  const std::string digest = req.matches[1];
  if (failArtifacts_ > 0) {
    --failArtifacts_;
    ++record_.refusedArtifacts;
    return problem(res, 503, "service_unavailable");
  }
  if (digest == common::sha256Hex(kernel_)) {
    record_.artifacts.push_back("kernel");
    res.set_content(corrupt_ ? kernel_ + "tampered" : kernel_, "application/octet-stream");
  } else if (digest == common::sha256Hex(initrd_)) {
    record_.artifacts.push_back("initrd");
    res.set_content(initrd_, "application/octet-stream");
  } else {
    problem(res, 404, "artifact_not_found");
  }
}

void FakeBootService::answerWipeTask(std::uint64_t seed) {
  std::lock_guard lock(mutex_);
  wipeSeed_ = seed;
}

void FakeBootService::agentCall(const std::string& name, const httplib::Request& req,
                                httplib::Response& res) {
  std::lock_guard lock(mutex_);
  if (name == "register") return registerNode(req, res);
  if (bearer(req) != kSessionToken) return problem(res, 401, "agent_token_unknown");
  if (name == "task") {
    agent::Task task;
    task.id = kTaskId;
    task.kind = agent::TaskKind::kBurnIn;
    task.plan = agent::defaultBurnInPlan();
    if (wipeSeed_) {
      task.kind = agent::TaskKind::kWipe;
      task.wipe.seed = *wipeSeed_;
    }
    res.set_content(agent::toJson(task).dump(), "application/json");
    return;
  }
  if (name == "result") return postResult(req, res);
  if (name == "credential") {
    ++record_.enrolments;
    res.set_content(json{{"credential", kMonitorCredential}}.dump(), "application/json");
    return;
  }
  auto progress = agent::parseProgress(json::parse(req.body, nullptr, false));
  if (!progress) record_.invalid.push_back("progress: " + progress.error().message);
  res.status = progress ? 204 : 400;
}

void FakeBootService::registerNode(const httplib::Request& req, httplib::Response& res) {
  const std::string token = bearer(req);
  record_.registerTokens.push_back(token);
  if (record_.mintedTokens.empty() || token != record_.mintedTokens.back()) {
    return problem(res, 401, "agent_token_unknown");
  }
  json body = json::parse(req.body, nullptr, false);
  auto facts = agent::parseFacts(body);
  if (!facts) {
    record_.invalid.push_back("facts: " + facts.error().message);
    return problem(res, 400, facts.error().code);
  }
  record_.facts = body;
  json answer = {{"node_id", 7}, {"task_id", kTaskId}, {"session_token", kSessionToken}};
  res.set_content(answer.dump(), "application/json");
}

void FakeBootService::postResult(const httplib::Request& req, httplib::Response& res) {
  json body = json::parse(req.body, nullptr, false);
  auto result = agent::parseTaskResult(body);
  if (!result) {
    record_.invalid.push_back("result: " + result.error().message);
    return problem(res, 400, result.error().code);
  }
  record_.results.push_back(body);
  json answer = {{"task_id", kTaskId},
                 {"state", "passed"},
                 {"verdict", {{"passed", true}, {"failures", json::array()}}}};
  res.set_content(answer.dump(), "application/json");
}

// The monitor's batches: the credential enrolled, a JSON object with GPUs (the service's
// own validation is tested with the service).
void FakeBootService::postHealth(const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mutex_);
  if (bearer(req) != kMonitorCredential) {
    ++record_.healthRefused;
    return problem(res, 401, "node_credential_unknown");
  }
  json body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.contains("gpus") || !body["gpus"].is_array()) {
    record_.invalid.push_back("health: " + req.body.substr(0, 200));
    return problem(res, 400, "invalid_batch");
  }
  record_.healthBatches.push_back(body);
  res.set_content(json{{"samples", body["gpus"].size()}}.dump(), "application/json");
}

}  // namespace sim::test
