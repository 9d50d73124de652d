// Burn-in results: finishing a task, batch peers and GPU history, against a real PostgreSQL.
#include <catch2/catch.hpp>
#include <limits>

#include "integration/inventory_agent_test_support.hpp"

using namespace inventory;
using namespace agent_test;
using inventory_test::count;
using inventory_test::makeNode;
using inventory_test::scalar;

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
  // The session token outlives the task: a retried result must learn "task_not_open".
  CHECK(checkAgentToken(db, tokenHash("session"), node.id, "session", false));

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
