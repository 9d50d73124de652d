// Boot MACs, agent tasks, agent tokens and burn-in results, against a real PostgreSQL.
#include <catch2/catch.hpp>
#include <limits>
#include <optional>
#include <thread>

#include "common/secret_box.hpp"
#include "integration/inventory_test_support.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/nodes.hpp"

using namespace inventory;
using inventory_test::count;
using inventory_test::makeNode;
using inventory_test::scalar;

namespace {

std::vector<std::string> eventKinds(Database& db, Id node_id) {
  auto d = getNodeDetail(db, node_id);
  REQUIRE_OK(d);
  std::vector<std::string> kinds;
  for (const auto& e : d->timeline) kinds.push_back(e.kind);
  return kinds;
}

NodeEvent lastEvent(Database& db, Id node_id) {
  auto d = getNodeDetail(db, node_id);
  REQUIRE_OK(d);
  REQUIRE_FALSE(d->timeline.empty());
  return d->timeline.back();
}

AgentTask makeTask(Database& db, Id node_id, const std::string& batch = "PO-7") {
  AgentTaskSpec spec;
  spec.node_id = node_id;
  spec.spec_json = R"({"tests":["gemm","hbm"]})";
  spec.batch = batch;
  spec.expected_gpus = 8;
  auto t = createAgentTask(db, spec, "workflow");
  REQUIRE_OK(t);
  return *t;
}

AgentTask runningTask(Database& db, Id node_id, const std::string& batch = "PO-7") {
  auto t = makeTask(db, node_id, batch);
  auto started = markTaskStarted(db, t.id);
  REQUIRE_OK(started);
  return *started;
}

std::string tokenHash(const std::string& secret) {
  return common::sha256Hex(secret);
}

void issue(Database& db, const AgentTask& task, const std::string& secret, const std::string& kind,
           int ttl = 3600) {
  REQUIRE_OK(issueAgentToken(db, {task.node_id, task.id, kind, tokenHash(secret), ttl}));
}

std::string refusal(const common::Result<AgentTokenGrant>& r) {
  return r.ok() ? "granted" : r.error().code;
}

BurnInResultRecord result(const std::string& serial, const std::string& test, double value,
                          bool passed = true) {
  BurnInResultRecord r;
  r.gpu_serial = serial;
  r.gpu_uuid = "GPU-uuid-" + serial;
  r.gpu_model = "H100 SXM";
  r.test = test;
  r.value = value;
  r.unit = "TFLOPS";
  r.nominal = 989.0;
  r.threshold = 840.65;
  r.passed = passed;
  r.reason = passed ? "" : "below 85% of nominal";
  return r;
}

}  // namespace

TEST_CASE("boot MACs belong to one node and malformed ones are refused",
          "[integration][inventory][agent][boot_macs]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-A", "5c:ff:35:00:00:01");
  auto b = makeNode(db, "NODE-B");

  REQUIRE_OK(addBootMacs(db, a.id, {"B8-3F-D2-00-00-02", "b8:3f:d2:00:00:01"}, "operator"));
  // Already on this node: kept, not an error.
  REQUIRE_OK(addBootMacs(db, a.id, {"b8:3f:d2:00:00:01"}, "redfish"));
  auto macs = listBootMacs(db, a.id);
  REQUIRE_OK(macs);
  CHECK(*macs == std::vector<std::string>{"b8:3f:d2:00:00:01", "b8:3f:d2:00:00:02"});
  CHECK(scalar(inv.url, "SELECT source FROM boot_macs WHERE mac = 'b8:3f:d2:00:00:01'") ==
        "operator");

  auto taken = addBootMacs(db, b.id, {"b8:3f:d2:00:00:09", "b8:3f:d2:00:00:02"}, "operator");
  REQUIRE_FALSE(taken.ok());
  CHECK(taken.error().kind == common::ErrorKind::kConflict);
  CHECK(taken.error().code == "boot_mac_in_use");
  CHECK(taken.error().field == "macs[1]");
  CHECK(listBootMacs(db, b.id)->empty());  // nothing of the refused call stayed

  auto malformed = addBootMacs(db, b.id, {"b8:3f:d2:00:00:10", "b8:3f:zz:00:00:11"}, "operator");
  REQUIRE_FALSE(malformed.ok());
  CHECK(malformed.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(malformed.error().code == "invalid_mac");
  CHECK(malformed.error().field == "macs[1]");
  CHECK(addBootMacs(db, b.id, {""}, "operator").error().code == "invalid_mac");
  CHECK(addBootMacs(db, b.id, {"b8:3f:d2:00:00:10"}, "dhcp").error().code == "invalid_source");
  CHECK(addBootMacs(db, 999999, {"b8:3f:d2:00:00:10"}, "operator").error().code ==
        "node_not_found");

  auto owner = nodeForBootMac(db, "B8:3F:D2:00:00:02");
  REQUIRE_OK(owner);
  CHECK(*owner == a.id);
  // The BMC MAC never network-boots.
  auto bmc = nodeForBootMac(db, "5c:ff:35:00:00:01");
  REQUIRE_OK(bmc);
  CHECK_FALSE(*bmc);
  CHECK(nodeForBootMac(db, "nonsense").error().code == "invalid_mac");
}

TEST_CASE("agent task lifecycle: one open task per node",
          "[integration][inventory][agent][tasks]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");

  auto task = makeTask(db, node.id);
  CHECK(task.state == "pending");
  CHECK(task.kind == "burn_in");
  CHECK(task.batch == "PO-7");
  CHECK(task.expected_gpus == 8);
  CHECK(task.spec_json.find("gemm") != std::string::npos);
  CHECK(task.created_by == "workflow");
  CHECK_FALSE(task.registered_at);
  CHECK(task.facts_json.empty());
  CHECK(eventKinds(db, node.id).back() == "task_created");

  AgentTaskSpec second;
  second.node_id = node.id;
  auto dup = createAgentTask(db, second, "workflow");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().kind == common::ErrorKind::kConflict);
  CHECK(dup.error().code == "task_already_open");
  second.node_id = 424242;
  CHECK(createAgentTask(db, second, "w").error().code == "node_not_found");
  second.node_id = node.id;
  second.kind = "reboot";
  CHECK(createAgentTask(db, second, "w").error().code == "invalid_kind");
  second.kind = "wipe";
  second.spec_json = "[unclosed";
  CHECK(createAgentTask(db, second, "w").error().field == "spec");

  auto open = openTaskForNode(db, node.id);
  REQUIRE_OK(open);
  REQUIRE(*open);
  CHECK((*open)->id == task.id);

  auto registered =
      recordRegistration(db, task.id, R"({"gpus":8})", {"b8:3f:d2:00:00:01", "b8:3f:d2:00:00:02"});
  REQUIRE_OK(registered);
  CHECK(registered->registered_at);
  CHECK(registered->facts_json.find("\"gpus\": 8") != std::string::npos);
  CHECK(listBootMacs(db, node.id)->size() == 2);
  CHECK(scalar(inv.url, "SELECT DISTINCT source FROM boot_macs") == "agent");
  CHECK(eventKinds(db, node.id).back() == "agent_registered");
  CHECK(recordRegistration(db, task.id, "not json", {}).error().field == "facts");

  auto started = markTaskStarted(db, task.id);
  REQUIRE_OK(started);
  CHECK(started->state == "running");
  REQUIRE(started->started_at);
  auto again = markTaskStarted(db, task.id);  // idempotent
  REQUIRE_OK(again);
  CHECK(again->started_at == started->started_at);
  REQUIRE_OK(recordProgress(db, task.id, R"({"test":"hbm","percent":40})"));
  CHECK(getAgentTask(db, task.id)->progress_json.find("hbm") != std::string::npos);

  auto cancelled = cancelAgentTask(db, task.id, "alice", "rack moved");
  REQUIRE_OK(cancelled);
  CHECK(cancelled->state == "cancelled");
  CHECK(cancelled->finished_at);
  auto event = lastEvent(db, node.id);
  CHECK(event.kind == "task_cancelled");
  CHECK(event.actor == "alice");
  CHECK(event.message.find("rack moved") != std::string::npos);

  CHECK(cancelAgentTask(db, task.id, "alice", "").error().code == "task_not_open");
  CHECK(markTaskStarted(db, task.id).error().code == "task_not_open");
  CHECK(recordProgress(db, task.id, "{}").error().code == "task_not_open");
  CHECK(recordRegistration(db, task.id, "{}", {}).error().code == "task_not_open");
  CHECK(getAgentTask(db, 777777).error().code == "task_not_found");
  CHECK_FALSE(*openTaskForNode(db, node.id));

  // The node is free for its next task; the list is newest first.
  auto next = makeTask(db, node.id);
  auto tasks = listTasksForNode(db, node.id);
  REQUIRE_OK(tasks);
  REQUIRE(tasks->size() == 2);
  CHECK((*tasks)[0].id == next.id);
  CHECK((*tasks)[1].id == task.id);
}

TEST_CASE("registration refuses a MAC that boots another node",
          "[integration][inventory][agent][tasks]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-A");
  auto b = makeNode(db, "NODE-B");
  REQUIRE_OK(addBootMacs(db, a.id, {"b8:3f:d2:00:00:01"}, "operator"));
  auto task = makeTask(db, b.id);

  auto r = recordRegistration(db, task.id, "{}", {"b8:3f:d2:00:00:02", "b8:3f:d2:00:00:01"});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == "boot_mac_in_use");
  CHECK(r.error().field == "macs[1]");
  CHECK_FALSE(getAgentTask(db, task.id)->registered_at);
  CHECK(listBootMacs(db, b.id)->empty());
}

TEST_CASE("concurrent task creation for one node opens exactly one",
          "[integration][inventory][agent][tasks]") {
  auto inv = inventory_test::freshInventory(8);
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  constexpr int kThreads = 6;
  std::vector<std::optional<common::Result<AgentTask>>> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      AgentTaskSpec spec;
      spec.node_id = node.id;
      results[i].emplace(createAgentTask(db, spec, "t"));
    });
  }
  for (auto& t : threads) t.join();
  int created = 0;
  for (const auto& r : results) {
    if (r->ok()) {
      ++created;
    } else {
      CHECK(r->error().code == "task_already_open");
    }
  }
  CHECK(created == 1);
  CHECK(count(inv.url, "agent_tasks") == 1);
}

TEST_CASE("agent tokens: node scope kind use expiry and revocation",
          "[integration][inventory][agent][tokens]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto other = makeNode(db, "NODE-B");
  auto task = makeTask(db, node.id);
  issue(db, task, "boot-1", "boot");
  issue(db, task, "session-1", "session");

  auto wrong_node = checkAgentToken(db, tokenHash("boot-1"), other.id, "boot", true);
  REQUIRE_FALSE(wrong_node.ok());
  CHECK(wrong_node.error().kind == common::ErrorKind::kPermissionDenied);
  CHECK(wrong_node.error().code == "agent_token_wrong_node");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-1"), node.id, "session", true)) ==
        "agent_token_wrong_kind");
  auto unknown = checkAgentToken(db, tokenHash("guess"), node.id, "boot", true);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().kind == common::ErrorKind::kUnauthenticated);
  CHECK(unknown.error().code == "agent_token_unknown");
  // Refused presentations did not use the token up.
  CHECK(scalar(inv.url, "SELECT count(*) FROM agent_tokens WHERE used_at IS NOT NULL") == "0");

  auto grant = checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true);
  REQUIRE_OK(grant);
  CHECK(grant->node_id == node.id);
  CHECK(grant->task_id == task.id);
  auto twice = checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().kind == common::ErrorKind::kUnauthenticated);
  CHECK(twice.error().code == "agent_token_used");

  // Session tokens are presented many times.
  REQUIRE_OK(checkAgentToken(db, tokenHash("session-1"), node.id, "session", false));
  REQUIRE_OK(checkAgentToken(db, tokenHash("session-1"), node.id, "session", false));

  issue(db, task, "expired", "session", 0);
  CHECK(refusal(checkAgentToken(db, tokenHash("expired"), node.id, "session", false)) ==
        "agent_token_expired");
  issue(db, task, "boot-expired", "boot", -5);
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-expired"), node.id, "boot", true)) ==
        "agent_token_expired");

  // A newer boot token revokes the unused one before it; the used one stays "used".
  issue(db, task, "boot-2", "boot");
  issue(db, task, "boot-3", "boot");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-2"), node.id, "boot", true)) ==
        "agent_token_revoked");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true)) ==
        "agent_token_used");
  REQUIRE_OK(checkAgentToken(db, tokenHash("boot-3"), node.id, "boot", true));

  auto dup = issueAgentToken(db, {node.id, task.id, "session", tokenHash("session-1"), 60});
  CHECK(dup.error().code == "duplicate_token");
  CHECK(issueAgentToken(db, {other.id, task.id, "boot", tokenHash("x"), 60}).error().code ==
        "task_node_mismatch");
  CHECK(issueAgentToken(db, {node.id, task.id, "admin", tokenHash("x"), 60}).error().code ==
        "invalid_token_kind");
  CHECK(issueAgentToken(db, {node.id, task.id, "boot", "plaintext", 60}).error().code ==
        "invalid_token_hash");
  CHECK(issueAgentToken(db, {node.id, 9999, "boot", tokenHash("x"), 60}).error().code ==
        "task_not_found");

  REQUIRE_OK(revokeTaskTokens(db, task.id));
  CHECK(refusal(checkAgentToken(db, tokenHash("session-1"), node.id, "session", false)) ==
        "agent_token_revoked");
}

TEST_CASE("two racing uses of one boot token: exactly one wins",
          "[integration][inventory][agent][tokens]") {
  auto inv = inventory_test::freshInventory(8);
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto task = makeTask(db, node.id);
  constexpr int kRounds = 10;
  constexpr int kThreads = 4;
  for (int round = 0; round < kRounds; ++round) {
    std::string secret = "boot-" + std::to_string(round);
    issue(db, task, secret, "boot");
    std::vector<std::optional<common::Result<AgentTokenGrant>>> results(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        results[i].emplace(checkAgentToken(db, tokenHash(secret), node.id, "boot", true));
      });
    }
    for (auto& t : threads) t.join();
    int granted = 0;
    for (const auto& r : results) {
      if (r->ok()) {
        ++granted;
      } else {
        CHECK(r->error().code == "agent_token_used");
      }
    }
    CHECK(granted == 1);
  }
}

TEST_CASE("cancelling a task revokes its tokens", "[integration][inventory][agent][tokens]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto task = makeTask(db, node.id);
  issue(db, task, "boot", "boot");
  issue(db, task, "session", "session");
  REQUIRE_OK(cancelAgentTask(db, task.id, "alice", ""));
  CHECK(refusal(checkAgentToken(db, tokenHash("boot"), node.id, "boot", true)) ==
        "agent_token_revoked");
  CHECK(refusal(checkAgentToken(db, tokenHash("session"), node.id, "session", false)) ==
        "agent_token_revoked");
  auto late = issueAgentToken(db, {node.id, task.id, "boot", tokenHash("late"), 60});
  CHECK(late.error().code == "task_not_open");
}

TEST_CASE("finishing a task stores results and verdict once",
          "[integration][inventory][agent][burn_in]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto task = runningTask(db, node.id);
  issue(db, task, "session", "session");

  auto bad = result("GPU-1", "gemm", 900);
  bad.value = std::numeric_limits<double>::quiet_NaN();
  auto nan = finishAgentTask(db, task.id, "passed", {result("GPU-0", "gemm", 1), bad}, "{}", "");
  REQUIRE_FALSE(nan.ok());
  CHECK(nan.error().field == "results[1].value");
  CHECK(finishAgentTask(db, task.id, "done", {}, "{}", "").error().code == "invalid_state");
  CHECK(finishAgentTask(db, task.id, "failed", {}, "{oops", "").error().field == "verdict");

  auto low = result("GPU-1", "gemm", 700.25, false);
  low.batch_median = 905.5;
  low.robust_z = -4.75;
  low.measured_at = "2026-03-01T10:00:00Z";
  std::vector<BurnInResultRecord> rows{result("GPU-0", "gemm", 901.125), low};
  auto finished = finishAgentTask(db, task.id, "failed", rows, R"({"passed":false})",
                                  "GPU GPU-1 gemm 700.25 TFLOPS below 840.65");
  REQUIRE_OK(finished);
  CHECK(finished->state == "failed");
  CHECK(finished->finished_at);
  CHECK(finished->verdict_json == R"({"passed": false})");
  auto event = lastEvent(db, node.id);
  CHECK(event.kind == "burn_in_failed");
  CHECK(event.message == "GPU GPU-1 gemm 700.25 TFLOPS below 840.65");
  CHECK(event.detail_json.find("\"failed_results\": 1") != std::string::npos);
  CHECK(refusal(checkAgentToken(db, tokenHash("session"), node.id, "session", false)) ==
        "agent_token_revoked");

  auto stored = taskResults(db, task.id);
  REQUIRE_OK(stored);
  REQUIRE(stored->size() == 2);
  const auto& s = (*stored)[1];
  CHECK(s.task_id == task.id);
  CHECK(s.node_id == node.id);
  CHECK(s.batch == "PO-7");
  CHECK(s.gpu_serial == "GPU-1");
  CHECK(s.gpu_uuid == "GPU-uuid-GPU-1");
  CHECK(s.value == 700.25);
  CHECK(s.nominal == 989.0);
  CHECK(s.threshold == 840.65);
  CHECK(s.batch_median == 905.5);
  CHECK(s.robust_z == -4.75);
  CHECK_FALSE(s.passed);
  CHECK(s.reason == "below 85% of nominal");
  CHECK(s.measured_at == "2026-03-01T10:00:00.000000Z");
  CHECK((*stored)[0].value == 901.125);
  CHECK_FALSE((*stored)[0].batch_median);
  CHECK((*stored)[0].measured_at.back() == 'Z');

  auto second = finishAgentTask(db, task.id, "passed", rows, "{}", "again");
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().kind == common::ErrorKind::kConflict);
  CHECK(second.error().code == "task_not_open");
  CHECK(count(inv.url, "burn_in_results") == 2);
  CHECK_THROWS(scalar(inv.url, "UPDATE burn_in_results SET value = 1000"));
  CHECK_THROWS(scalar(inv.url, "DELETE FROM burn_in_results"));

  auto pending = makeTask(db, node.id);
  CHECK(finishAgentTask(db, pending.id, "passed", {}, "{}", "").error().code == "task_not_open");
}

TEST_CASE("batch peers and GPU history", "[integration][inventory][agent][burn_in]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-A");
  auto b = makeNode(db, "NODE-B");
  auto c = makeNode(db, "NODE-C");

  auto first = runningTask(db, a.id);
  auto hbm = result("GPU-A0", "hbm", 3000);
  auto other_model = result("GPU-A1", "gemm", 500);
  other_model.gpu_model = "A100 SXM";
  REQUIRE_OK(finishAgentTask(
      db, first.id, "passed",
      {result("GPU-A0", "gemm", 900), result("GPU-A1", "gemm", 910), hbm, other_model}, "{}",
      "ok"));
  auto other_batch = runningTask(db, b.id, "PO-8");
  REQUIRE_OK(
      finishAgentTask(db, other_batch.id, "passed", {result("GPU-B0", "gemm", 100)}, "{}", "ok"));
  auto current = runningTask(db, c.id);
  REQUIRE_OK(
      finishAgentTask(db, current.id, "passed", {result("GPU-C0", "gemm", 920)}, "{}", "ok"));
  CHECK(lastEvent(db, c.id).kind == "burn_in_passed");

  auto peers = batchPeerValues(db, "PO-7", "H100 SXM", "gemm", current.id);
  REQUIRE_OK(peers);
  CHECK(*peers == std::vector<double>{900, 910});
  auto with_current = batchPeerValues(db, "PO-7", "H100 SXM", "gemm", 0);
  REQUIRE_OK(with_current);
  CHECK(with_current->size() == 3);
  CHECK(*batchPeerValues(db, "PO-7", "H100 SXM", "hbm", current.id) == std::vector<double>{3000});
  CHECK(batchPeerValues(db, "PO-9", "H100 SXM", "gemm", 0)->empty());
  CHECK(batchPeerValues(db, "", "H100 SXM", "gemm", 0)->empty());

  // GPU-A0 moves to node B and is burned in again: its history spans both tasks, newest first.
  auto again = runningTask(db, b.id, "PO-8");
  REQUIRE_OK(
      finishAgentTask(db, again.id, "error", {result("GPU-A0", "gemm", 450, false)}, "{}", "xid"));
  CHECK(lastEvent(db, b.id).kind == "task_error");
  auto history = gpuBurnInHistory(db, "GPU-A0");
  REQUIRE_OK(history);
  REQUIRE(history->size() == 3);
  CHECK((*history)[0].task_id == again.id);
  CHECK((*history)[0].node_id == b.id);
  CHECK((*history)[0].value == 450);
  CHECK((*history)[1].task_id == first.id);
  CHECK((*history)[2].task_id == first.id);
  auto unknown = gpuBurnInHistory(db, "GPU-NONE");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().kind == common::ErrorKind::kNotFound);
  CHECK(unknown.error().code == "gpu_not_found");
}
