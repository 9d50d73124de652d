// The resident agent's monitor credential over HTTP (docs/health.md, "The monitor credential"):
// enrolment by a burn-in agent, batches refused with another node's or a revoked credential (and
// nothing stored), the two-phase rotation an operator asks for, and revocation by an operator and
// by decommissioning.
#include <chrono>

#include <catch2/catch.hpp>

#include "agent/agent_main.hpp"
#include "agent/runner.hpp"
#include "agent/sim_backend.hpp"
#include "boot_test_support.hpp"
#include "integration/inventory_agent_test_support.hpp"
#include "inventory/decommissions.hpp"
#include "inventory/health/time.hpp"
#include "inventory/resident_tasks.hpp"
#include "inventory/workflow_runs.hpp"

using nlohmann::json;
using testing::bearer;
using testing::HttpResult;
using testing::ServiceFixture;
namespace h = inventory::health;

namespace {

std::string timeAgo(std::chrono::seconds ago) {
  return h::formatUtc(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) -
                      ago);
}

json batch(const std::string& serial, std::chrono::seconds ago) {
  return {{"sampled_at", timeAgo(ago)},
          {"gpus", json::array({{{"serial", serial}, {"temperature_c", 55.0}}})}};
}

struct Node {
  inventory::Id id = 0;
  std::string session;  // the burn-in task's session token
  std::string agentPath(const std::string& tail) const {
    return "/api/v1/agent/nodes/" + std::to_string(id) + tail;
  }
  std::string nodePath(const std::string& tail) const {
    return "/api/v1/nodes/" + std::to_string(id) + tail;
  }
};

Node burningIn(ServiceFixture& svc, const std::string& chassis) {
  auto node = inventory_test::makeNode(svc.db(), chassis);
  auto task = agent_test::runningTask(svc.db(), node.id);
  const std::string secret = "agt_cred_" + chassis;
  agent_test::issue(svc.db(), task, secret, "session");
  return {node.id, secret};
}

std::string enroll(ServiceFixture& svc, const Node& n) {
  auto r = svc.anonymous("POST", n.agentPath("/credential"), "", bearer(n.session));
  INFO(r.body);
  REQUIRE(r.status == 201);
  const std::string credential = r.json()["credential"];
  CHECK(credential.rfind("nmc_", 0) == 0);
  return credential;
}

HttpResult report(ServiceFixture& svc, const Node& n, const std::string& credential,
                  const json& body) {
  return svc.anonymous("POST", n.agentPath("/health"), body.dump(), bearer(credential));
}

HttpResult rotate(ServiceFixture& svc, const Node& n, const std::string& credential) {
  return svc.anonymous("POST", n.agentPath("/credential/rotate"), "", bearer(credential));
}

bool hasHistory(ServiceFixture& svc, const std::string& serial) {
  return svc.get("/api/v1/gpus/" + serial + "/health", "viewer").status == 200;
}

json credentials(ServiceFixture& svc, const Node& n) {
  auto r = svc.get(n.nodePath("/credentials"), "viewer");
  REQUIRE(r.status == 200);
  return r.json()["items"];
}

// A task for the node's agent, as a gpu_flag_reset (gpu_flag_burn_in) run writes it (its intent).
inventory::Id residentTask(ServiceFixture& svc, const Node& n, const std::string& serial,
                           const char* kind = inventory::kResidentGpuReset,
                           const std::string& spec_json = "{}") {
  inventory::NewWorkflowRun run;
  run.kind = "gpu_flag_reset";
  run.subject = "gpu_flag:test-" + serial;
  run.step = "reset";
  run.node_id = n.id;
  run.now = std::chrono::system_clock::now();
  auto created = inventory::createWorkflowRun(svc.db(), run);
  REQUIRE(created);
  inventory::ResidentTaskDraft draft{n.id, kind, serial, std::nullopt, created->run.id};
  draft.spec_json = spec_json;
  auto task = inventory::queueResidentTask(
      svc.db(), draft, std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  REQUIRE(task);
  return task->id;
}

HttpResult taskResult(ServiceFixture& svc, const Node& n, inventory::Id task,
                      const std::string& credential, const std::string& body) {
  return svc.anonymous("POST", n.agentPath("/resident-tasks/" + std::to_string(task) + "/result"),
                       body, bearer(credential));
}

}  // namespace

TEST_CASE("a burn-in agent enrolls and reports with its credential, for its node only",
          "[integration][api][health][credential]") {
  ServiceFixture svc;
  auto a = burningIn(svc, "CRED-A");
  auto b = burningIn(svc, "CRED-B");
  const std::string cred_a = enroll(svc, a);
  const std::string cred_b = enroll(svc, b);

  auto ok = report(svc, a, cred_a, batch("GPU-CRED-A0", std::chrono::seconds{30}));
  INFO(ok.body);
  REQUIRE(ok.status == 200);
  CHECK(ok.json()["samples"] == 1);
  CHECK(ok.json()["rotate_credential"] == false);

  // B's credential on A's path: refused, and nothing of the batch stored.
  auto wrong = report(svc, a, cred_b, batch("GPU-CRED-X0", std::chrono::seconds{20}));
  CHECK(wrong.status == 403);
  CHECK(wrong.json()["code"] == "credential_wrong_node");
  auto unknown = report(svc, a, "nmc_" + std::string(43, 'A'), batch("GPU-CRED-X0", {}));
  CHECK(unknown.status == 401);
  CHECK(unknown.json()["code"] == "credential_unknown");
  CHECK_FALSE(hasHistory(svc, "GPU-CRED-X0"));

  // The list names when it was first used and never shows a secret or a hash.
  auto listed = credentials(svc, a);
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["live"] == true);
  CHECK_FALSE(listed[0]["first_used_at"].is_null());
  auto raw = svc.get(a.nodePath("/credentials"), "viewer").body;
  CHECK(raw.find(cred_a) == std::string::npos);
  CHECK(raw.find(agent_test::tokenHash(cred_a)) == std::string::npos);

  // Enrolling again (a retry after a lost answer) leaves only the newest live.
  const std::string again = enroll(svc, a);
  auto old = report(svc, a, cred_a, batch("GPU-CRED-A0", std::chrono::seconds{10}));
  CHECK(old.status == 401);
  CHECK(old.json()["code"] == "credential_revoked");
  CHECK(report(svc, a, again, batch("GPU-CRED-A0", std::chrono::seconds{10})).status == 200);
  CHECK(credentials(svc, a)[1]["revoked_reason"] == "re_enrolled");
}

TEST_CASE("a rotation an operator asks for completes in two phases and strands nothing",
          "[integration][api][health][credential]") {
  ServiceFixture svc;
  auto n = burningIn(svc, "CRED-ROT");
  const std::string first = enroll(svc, n);
  CHECK(svc.send("POST", n.nodePath("/credential/rotate"), "{}", "viewer").status == 403);
  auto asked = svc.send("POST", n.nodePath("/credential/rotate"), "{}", "operator");
  INFO(asked.body);
  REQUIRE(asked.status == 202);

  auto told = report(svc, n, first, batch("GPU-ROT-0", std::chrono::seconds{60}));
  REQUIRE(told.status == 200);
  CHECK(told.json()["rotate_credential"] == true);

  // The answer to the first rotation is "lost": the agent asks again with the same credential.
  auto lost = rotate(svc, n, first);
  REQUIRE(lost.status == 201);
  auto second = rotate(svc, n, first);
  REQUIRE(second.status == 201);
  const std::string lost_successor = lost.json()["credential"];
  const std::string successor = second.json()["credential"];
  CHECK(successor != lost_successor);
  CHECK(report(svc, n, lost_successor, batch("GPU-ROT-0", std::chrono::seconds{50})).status == 401);
  // Until the successor is used, the old credential still works (and still says rotate).
  auto still = report(svc, n, first, batch("GPU-ROT-0", std::chrono::seconds{40}));
  REQUIRE(still.status == 200);
  CHECK(still.json()["rotate_credential"] == true);

  auto done = report(svc, n, successor, batch("GPU-ROT-0", std::chrono::seconds{30}));
  REQUIRE(done.status == 200);
  CHECK(done.json()["rotate_credential"] == false);
  auto after = report(svc, n, first, batch("GPU-ROT-0", std::chrono::seconds{20}));
  CHECK(after.status == 401);
  CHECK(after.json()["code"] == "credential_revoked");

  auto listed = credentials(svc, n);  // newest first: successor, lost successor, first
  REQUIRE(listed.size() == 3);
  CHECK(listed[0]["live"] == true);
  CHECK(listed[1]["revoked_reason"] == "superseded");
  CHECK(listed[2]["revoked_reason"] == "rotated");
  CHECK(listed[0]["predecessor_id"] == listed[2]["id"]);
}

TEST_CASE("revocation by an operator and by decommissioning shuts the node out at once",
          "[integration][api][health][credential]") {
  ServiceFixture svc;
  auto n = burningIn(svc, "CRED-REV");
  const std::string credential = enroll(svc, n);
  auto revoked = svc.send("POST", n.nodePath("/credential/revoke"), "{}", "operator");
  INFO(revoked.body);
  REQUIRE(revoked.status == 200);
  CHECK(revoked.json()["revoked"] == 1);
  auto refused = report(svc, n, credential, batch("GPU-REV-0", std::chrono::seconds{30}));
  CHECK(refused.status == 401);
  CHECK(refused.json()["code"] == "credential_revoked");
  CHECK_FALSE(hasHistory(svc, "GPU-REV-0"));
  CHECK(svc.send("POST", n.nodePath("/credential/rotate"), "{}", "operator").status == 404);

  // The node's next burn-in enrolls it again; then it is decommissioned.
  const std::string renewed = enroll(svc, n);
  REQUIRE(report(svc, n, renewed, batch("GPU-REV-0", std::chrono::seconds{20})).status == 200);
  REQUIRE_OK(inventory::setNodeState(svc.db(), n.id, "ready", "test", "in service"));
  inventory::DecommissionRequest request;
  request.node_id = n.id;
  request.reason = "refresh";
  request.requested_by = "test";
  request.at = std::chrono::system_clock::now();
  REQUIRE_OK(inventory::createDecommission(svc.db(), request));
  auto gone = report(svc, n, renewed, batch("GPU-REV-0", std::chrono::seconds{10}));
  CHECK(gone.status == 401);
  CHECK(credentials(svc, n)[0]["revoked_reason"] == "decommissioned");
  // A decommissioning node's agent gets no new one.
  auto refused_enrol = svc.anonymous("POST", n.agentPath("/credential"), "", bearer(n.session));
  CHECK(refused_enrol.status == 409);
  CHECK(refused_enrol.json()["code"] == "node_not_in_service");
}

TEST_CASE("a wipe task's agent cannot enroll", "[integration][api][health][credential]") {
  ServiceFixture svc;
  auto node = inventory_test::makeNode(svc.db(), "CRED-WIPE");
  inventory::AgentTaskSpec spec;
  spec.node_id = node.id;
  spec.kind = "wipe";
  spec.spec_json = R"({"passes":["zero"]})";
  auto task = inventory::createAgentTask(svc.db(), spec, "workflow");
  REQUIRE_OK(task);
  agent_test::issue(svc.db(), *task, "agt_cred_wipe", "session");
  auto r = svc.anonymous("POST", "/api/v1/agent/nodes/" + std::to_string(node.id) + "/credential",
                         "", bearer("agt_cred_wipe"));
  INFO(r.body);
  CHECK(r.status == 409);
  CHECK(r.json()["code"] == "task_not_burn_in");
}

TEST_CASE("a resident task is handed over with the batch's answer and reported by its node only",
          "[integration][api][health][credential][reset]") {
  ServiceFixture svc;
  auto a = burningIn(svc, "RT-A");
  auto b = burningIn(svc, "RT-B");
  const std::string cred_a = enroll(svc, a);
  const std::string cred_b = enroll(svc, b);

  auto quiet = report(svc, a, cred_a, batch("GPU-RT-A0", std::chrono::seconds{40}));
  REQUIRE(quiet.status == 200);
  CHECK(quiet.json()["tasks"] == json::array());

  const auto task = residentTask(svc, a, "GPU-RT-A0");
  auto told = report(svc, a, cred_a, batch("GPU-RT-A0", std::chrono::seconds{30}));
  REQUIRE(told.status == 200);
  REQUIRE(told.json()["tasks"].size() == 1);
  CHECK(told.json()["tasks"][0] ==
        json({{"id", task}, {"kind", "gpu_reset"}, {"gpu_serial", "GPU-RT-A0"}}));
  // B's batches do not carry A's task.
  auto other = report(svc, b, cred_b, batch("GPU-RT-B0", std::chrono::seconds{30}));
  CHECK(other.json()["tasks"] == json::array());

  // Refused, and nothing recorded: B's credential, no credential, a bad status, a NUL byte.
  auto wrong = taskResult(svc, a, task, cred_b, R"({"status": "succeeded"})");
  CHECK(wrong.status == 403);
  CHECK(svc.anonymous("POST", a.agentPath("/resident-tasks/" + std::to_string(task) + "/result"),
                      R"({"status": "succeeded"})")
            .status == 401);
  auto bad = taskResult(svc, a, task, cred_a, R"({"status": "done"})");
  CHECK(bad.status == 400);
  CHECK(bad.json()["field"] == "status");
  const char nul_body[] = "{\"status\": \"succ\0eeded\"}";
  auto nul = taskResult(svc, a, task, cred_a, std::string(nul_body, sizeof(nul_body) - 1));
  CHECK(nul.status == 400);
  auto elsewhere = taskResult(svc, b, task, cred_b, R"({"status": "succeeded"})");
  CHECK(elsewhere.status == 404);
  CHECK(elsewhere.json()["code"] == "resident_task_not_found");
  auto listed = svc.get(a.nodePath("/resident-tasks"), "viewer");
  REQUIRE(listed.status == 200);
  CHECK(listed.json()["items"][0]["state"] == "delivered");

  // The report, once; the same again is taken (a retry), a different one is a conflict.
  const std::string done =
      R"({"status": "succeeded", "message": "GPU reset; no row remap pending"})";
  auto ok = taskResult(svc, a, task, cred_a, done);
  INFO(ok.body);
  REQUIRE(ok.status == 200);
  CHECK(ok.json()["state"] == "succeeded");
  CHECK(taskResult(svc, a, task, cred_a, done).status == 200);
  auto changed = taskResult(svc, a, task, cred_a, R"({"status": "failed"})");
  CHECK(changed.status == 409);
  CHECK(changed.json()["code"] == "resident_task_finished");
  auto after = report(svc, a, cred_a, batch("GPU-RT-A0", std::chrono::seconds{20}));
  CHECK(after.json()["tasks"] == json::array());
  listed = svc.get(a.nodePath("/resident-tasks"), "viewer");
  CHECK(listed.json()["items"][0]["message"] == "GPU reset; no row remap pending");
  CHECK_FALSE(listed.json()["items"][0]["finished_at"].is_null());
}

TEST_CASE("a resident burn-in's report is judged by the service; a bad one is refused whole",
          "[integration][api][health][credential][burn_in]") {
  ServiceFixture svc;
  auto a = burningIn(svc, "RB-A");
  const std::string cred = enroll(svc, a);
  auto plan = agent::defaultBurnInPlan();
  for (auto& test : plan.tests) test.duration_s = 1;
  const json spec = {{"plan", agent::toJson(plan)}, {"expected_gpus", 2}};
  const auto task = residentTask(svc, a, "RB-A-GPU0", inventory::kResidentBurnIn, spec.dump());

  // Handed over with its plan.
  auto told = report(svc, a, cred, batch("RB-A-GPU0", std::chrono::seconds{30}));
  REQUIRE(told.status == 200);
  REQUIRE(told.json()["tasks"].size() == 1);
  CHECK(told.json()["tasks"][0]["kind"] == "burn_in");
  CHECK(told.json()["tasks"][0]["plan"] == spec["plan"]);

  // What the agent sends: the plan run on two simulated GPUs, and their facts.
  auto sim = agent::SimulatedGpuBackend::create(
      *agent::parseSimConfigText(R"({"host_serial": "RB-A", "gpus": 2, "in_service_load": true})"));
  REQUIRE(sim);
  auto gpus = (*sim)->discover();
  REQUIRE(gpus);
  const auto result =
      agent::runBurnIn(task, plan, **sim, *gpus, [](const agent::Progress&) { return true; });
  agent::Facts facts;
  facts.agent_version = std::string(agent::kAgentVersion);
  facts.backend = "simulated";
  facts.gpus = *gpus;
  const json ran = {{"status", "succeeded"},
                    {"message", "burn-in ran"},
                    {"result", agent::toJson(result)},
                    {"facts", agent::toJson(facts)}};

  // Refused with the field named, and nothing recorded: no result, a damaged one, another
  // task's result.
  json without = ran;
  without.erase("result");
  auto missing = taskResult(svc, a, task, cred, without.dump());
  CHECK(missing.status == 400);
  CHECK(missing.json()["field"] == "result");
  json damaged = ran;
  damaged["result"]["measurements"][0]["value"] = "fast";
  auto bad = taskResult(svc, a, task, cred, damaged.dump());
  CHECK(bad.status == 400);
  CHECK(bad.json()["field"].get<std::string>().rfind("result.measurements[0]", 0) == 0);
  json other = ran;
  other["result"]["task_id"] = task + 1000;
  auto stranger = taskResult(svc, a, task, cred, other.dump());
  CHECK(stranger.status == 400);
  CHECK(stranger.json()["field"] == "result.task_id");
  auto listed = svc.get(a.nodePath("/resident-tasks"), "viewer");
  CHECK(listed.json()["items"][0]["state"] == "delivered");

  // Judged: two healthy GPUs pass; the verdict is kept with the task.
  auto judged = taskResult(svc, a, task, cred, ran.dump());
  INFO(judged.body);
  REQUIRE(judged.status == 200);
  CHECK(judged.json()["state"] == "succeeded");
  CHECK(judged.json()["message"].get<std::string>().rfind("burn-in passed", 0) == 0);
  CHECK(judged.json()["verdict"]["passed"] == true);
  // A retry after a lost answer is judged the same and taken.
  CHECK(taskResult(svc, a, task, cred, ran.dump()).status == 200);
}
