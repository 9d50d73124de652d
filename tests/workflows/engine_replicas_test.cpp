// Replicas sharing one database with the real clock: no step executed twice, and a replica
// killed with SIGKILL loses nothing.
#include <csignal>
#include <map>
#include <mutex>
#include <set>

#include <pqxx/pqxx>

#include "engine_test_support.hpp"
#include "support/child_process.hpp"

using namespace std::chrono_literals;
using workflows::StepContext;
using workflows::StepOutcome;

namespace {

bool allSucceeded(inventory::Database& db, const std::string& kind, std::int64_t n) {
  auto counts = inventory::workflowRunCounts(db, kind);
  return counts.ok() && counts->size() == 1 && counts->front().first == "succeeded" &&
         counts->front().second == n;
}

// `n` runs of the workflow_replica's three-step workflow, due now.
std::vector<inventory::Id> replicaDemoRuns(inventory::Database& db, int n) {
  std::vector<inventory::Id> ids;
  for (int i = 0; i < n; ++i) {
    inventory::NewWorkflowRun run;
    run.kind = "replica_demo";
    run.subject = "node-" + std::to_string(i);
    run.step = "one";
    run.created_by = "test";
    run.now = std::chrono::system_clock::now();
    auto created = inventory::createWorkflowRun(db, run);
    ENGINE_REQUIRE_OK(created);
    ids.push_back(created->run.id);
  }
  return ids;
}

// How many of `ids` are running and leased to `owner`.
int heldBy(inventory::Database& db, const std::vector<inventory::Id>& ids,
           const std::string& owner) {
  int n = 0;
  for (auto id : ids) {
    auto run = engine_test::runOf(db, id);
    if (run.state == "running" && run.lease_owner == owner) ++n;
  }
  return n;
}

// The argv of a replica whose 4 workers hang in step one of the runs they lease (10-minute
// leases: only the liveness lock frees them in time).
std::vector<std::string> hangingReplica(const std::string& url) {
  return {PROVISIONER_WORKFLOW_REPLICA, url, "replica-a", "600000", "hang"};
}

// Waits until that replica is ready and holds 4 of `ids`.
void awaitHanging(testing::ChildProcess& replica, inventory::Database& db,
                  const std::vector<inventory::Id>& ids) {
  REQUIRE(replica.waitForLine("ready", 60s));
  REQUIRE(engine_test::eventually([&] { return heldBy(db, ids, "replica-a") == 4; }, 60s));
}

}  // namespace

TEST_CASE("Engine replicas share runs and execute each step exactly once", "[engine][replicas]") {
  auto t = engine_test::freshDb();
  constexpr int kRuns = 300;
  std::mutex mutex;
  std::map<std::pair<inventory::Id, std::string>, int> executions;
  std::map<std::string, int> by_owner;

  auto def = [&](const std::string& owner) {
    auto record = [&, owner](StepContext& ctx) {
      std::lock_guard lock(mutex);
      ++executions[{ctx.run().id, ctx.run().step}];
      ++by_owner[owner];
    };
    workflows::WorkflowDef d;
    d.kind = "shared";
    d.first_step = "a";
    d.steps.push_back({"a", [record](StepContext& ctx) {
                         record(ctx);
                         return StepOutcome::next("b");
                       }});
    d.steps.push_back({"b", [record](StepContext& ctx) {
                         record(ctx);
                         return StepOutcome::next("c");
                       }});
    d.steps.push_back({"c", [record](StepContext& ctx) {
                         record(ctx);
                         return StepOutcome::succeed();
                       }});
    return d;
  };
  std::vector<std::unique_ptr<workflows::Engine>> engines;
  for (const std::string owner : {"replica-1", "replica-2"}) {
    auto db = inventory::Database::connect(t.url, 6);
    ENGINE_REQUIRE_OK(db);
    workflows::EngineOptions options;
    options.owner = owner;
    options.workers = 4;
    options.poll_interval = 50ms;
    options.claim_batch = 16;
    engines.push_back(std::make_unique<workflows::Engine>(*db, workflows::systemClock(), options));
    engines.back()->registerWorkflow(def(owner));
  }
  for (int i = 0; i < kRuns; ++i) {
    workflows::StartRequest req;
    req.kind = "shared";
    req.subject = "node-" + std::to_string(i);
    ENGINE_REQUIRE_OK(engines[0]->start(req));
  }
  for (auto& e : engines) e->start();
  const bool done =
      engine_test::eventually([&] { return allSucceeded(*t.db, "shared", kRuns); }, 180s);
  for (auto& e : engines) e->stop();
  REQUIRE(done);

  std::lock_guard lock(mutex);
  CHECK(executions.size() == 3 * kRuns);
  int twice = 0;
  for (const auto& [key, n] : executions) twice += n != 1 ? 1 : 0;
  CHECK(twice == 0);
  CHECK(by_owner["replica-1"] > 0);
  CHECK(by_owner["replica-2"] > 0);
  CHECK(engines[0]->stats().outcomes_lost + engines[1]->stats().outcomes_lost == 0);
}

TEST_CASE("Engine replica killed with SIGKILL loses nothing and the survivor finishes its runs",
          "[engine][replicas][sigkill]") {
  auto t = engine_test::freshDb();
  constexpr int kRuns = 60;
  const std::vector<inventory::Id> ids = replicaDemoRuns(*t.db, kRuns);
  testing::ChildProcess doomed({PROVISIONER_WORKFLOW_REPLICA, t.url, "replica-a", "2000"});
  testing::ChildProcess survivor({PROVISIONER_WORKFLOW_REPLICA, t.url, "replica-b", "2000"});
  REQUIRE(doomed.waitForLine("ready", 60s));
  REQUIRE(survivor.waitForLine("ready", 60s));

  auto actors = [&] {
    std::set<std::string> seen;
    for (auto id : ids) {
      auto events = inventory::workflowRunEvents(*t.db, id);
      if (!events) continue;
      for (const auto& e : *events) seen.insert(e.actor);
    }
    return seen;
  };
  const bool both = engine_test::eventually(
      [&] {
        auto seen = actors();
        return seen.count("replica-a") > 0 && seen.count("replica-b") > 0;
      },
      60s);
  REQUIRE(both);
  doomed.signal(SIGKILL);
  REQUIRE(doomed.wait(30s).has_value());
  REQUIRE_FALSE(allSucceeded(*t.db, "replica_demo", kRuns));  // the survivor has work left

  const bool done =
      engine_test::eventually([&] { return allSucceeded(*t.db, "replica_demo", kRuns); }, 120s);
  survivor.signal(SIGTERM);
  auto status = survivor.wait(60s);
  REQUIRE(done);
  REQUIRE(status.has_value());
  CHECK(*status == 0);

  int finished_by_survivor = 0;
  for (auto id : ids) {
    auto events = inventory::workflowRunEvents(*t.db, id);
    ENGINE_REQUIRE_OK(events);
    std::map<std::string, int> completed;
    for (const auto& e : *events) {
      if (e.kind == "step_completed") ++completed[e.step];
      if (e.kind == "succeeded" && e.actor == "replica-b") ++finished_by_survivor;
    }
    INFO("run " << id);
    CHECK(completed == std::map<std::string, int>{{"one", 1}, {"three", 1}, {"two", 1}});
  }
  CHECK(finished_by_survivor > 0);
}

TEST_CASE(
    "Engine replica killed with SIGKILL: its runs are taken over at once, not at lease expiry",
    "[engine][replicas][sigkill][takeover]") {
  auto t = engine_test::freshDb();
  constexpr int kRuns = 8;
  const std::vector<inventory::Id> ids = replicaDemoRuns(*t.db, kRuns);
  auto heldBy = [&](const std::string& owner) { return ::heldBy(*t.db, ids, owner); };
  testing::ChildProcess doomed(hangingReplica(t.url));
  awaitHanging(doomed, *t.db, ids);
  testing::ChildProcess survivor({PROVISIONER_WORKFLOW_REPLICA, t.url, "replica-b", "600000"});
  REQUIRE(survivor.waitForLine("ready", 60s));
  auto succeeded = [&] {
    int n = 0;
    for (auto id : ids) n += engine_test::runOf(*t.db, id).state == "succeeded";
    return n;
  };
  REQUIRE(engine_test::eventually([&] { return succeeded() == kRuns - 4; }, 60s));
  CHECK(heldBy("replica-a") == 4);  // alive, holding its runs: not taken from it

  const auto killed_at = std::chrono::steady_clock::now();
  doomed.signal(SIGKILL);
  REQUIRE(doomed.wait(30s).has_value());
  const bool done = engine_test::eventually([&] { return succeeded() == kRuns; }, 60s);
  const auto took = std::chrono::steady_clock::now() - killed_at;
  survivor.signal(SIGTERM);
  REQUIRE(survivor.wait(60s).has_value());
  REQUIRE(done);
  INFO("take-over and 3 steps took "
       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  CHECK(took < 30s);  // against a 600 s lease
  for (auto id : ids) {
    auto events = inventory::workflowRunEvents(*t.db, id);
    ENGINE_REQUIRE_OK(events);
    int completed_one = 0;
    for (const auto& e : *events) completed_one += e.kind == "step_completed" && e.step == "one";
    CHECK(completed_one == 1);
  }
}

namespace {

// What a PostgreSQL restart does to the replicas' liveness locks, without the restart: every
// session holding one is terminated at once. Returns how many were.
int dropLivenessSessions(const std::string& url) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  auto row = tx.exec1(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory'"
      " AND granted AND objsubid = 2 AND classid::bigint = 1886547830"
      " AND pid <> pg_backend_pid()");
  return row[0].as<int>();
}

int livenessLocksHeld(const std::string& url) {
  pqxx::connection c(url);
  pqxx::nontransaction tx(c);
  return tx
      .exec1(
          "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
          " AND objsubid = 2 AND classid::bigint = 1886547830")[0]
      .as<int>();
}

}  // namespace

TEST_CASE("Engine replicas that all lose their liveness locks at once take nothing from each other",
          "[engine][replicas][takeover]") {
  // After a PostgreSQL restart no replica holds its lock until its keeper takes it back (within
  // a second). A replica claiming in that gap must not read a live replica as dead: it takes
  // over only once its own lock has been held for the grace period again.
  auto t = engine_test::freshDb();
  const std::vector<inventory::Id> ids = replicaDemoRuns(*t.db, 4);
  auto heldBy = [&](const std::string& owner) { return ::heldBy(*t.db, ids, owner); };
  testing::ChildProcess hanging(hangingReplica(t.url));
  awaitHanging(hanging, *t.db, ids);
  testing::ChildProcess other({PROVISIONER_WORKFLOW_REPLICA, t.url, "replica-b", "600000"});
  REQUIRE(other.waitForLine("ready", 60s));
  REQUIRE(engine_test::eventually([&] { return livenessLocksHeld(t.url) == 2; }, 30s));
  std::map<inventory::Id, std::int64_t> epochs;
  for (auto id : ids) epochs[id] = engine_test::runOf(*t.db, id).lease_epoch;

  CHECK(dropLivenessSessions(t.url) == 2);
  // Both keepers take their locks back; replica-b keeps claiming all the while.
  REQUIRE(engine_test::eventually([&] { return livenessLocksHeld(t.url) == 2; }, 30s));
  CHECK(heldBy("replica-a") == 4);
  for (auto id : ids) CHECK(engine_test::runOf(*t.db, id).lease_epoch == epochs[id]);

  // replica-a is really gone now: replica-b, its own lock held long enough, takes its runs.
  hanging.signal(SIGKILL);
  REQUIRE(hanging.wait(30s).has_value());
  CHECK(engine_test::eventually([&] { return heldBy("replica-a") == 0; }, 60s));
  other.signal(SIGTERM);
  REQUIRE(other.wait(60s).has_value());
}
