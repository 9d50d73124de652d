// The fleet's GPU health upkeep run: one run however often replicas ask, partitions made ahead
// of the days that come, done again after its interval.
#include <pqxx/pqxx>

#include "engine_test_support.hpp"
#include "workflows/health_upkeep.hpp"

namespace {

long long samplePartitions(const std::string& url) {
  pqxx::connection c(url);
  pqxx::nontransaction w(c);
  return w
      .exec1("SELECT count(*) FROM pg_inherits WHERE inhparent = 'gpu_health_samples'::regclass")[0]
      .as<long long>();
}

}  // namespace

TEST_CASE("The health upkeep run keeps partitions ahead of the days and repeats on its interval",
          "[health][upkeep]") {
  auto t = engine_test::freshDb();
  auto clock = std::make_shared<workflows::FakeClock>();
  workflows::Engine engine(t.db, clock, workflows::EngineOptions{"test-replica"});
  workflows::HealthUpkeepOptions options;
  options.interval = std::chrono::minutes(5);
  engine.registerWorkflow(workflows::gpuHealthUpkeepWorkflow(t.db, options));
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));
  ENGINE_REQUIRE_OK(workflows::ensureHealthUpkeepRun(engine));  // a second replica asking
  auto counts = inventory::workflowRunCounts(*t.db, workflows::kGpuHealthUpkeep);
  ENGINE_REQUIRE_OK(counts);
  REQUIRE(counts->size() == 1);
  CHECK(counts->front().second == 1);

  const long long before = samplePartitions(t.url);
  auto ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  const long long first = samplePartitions(t.url);
  CHECK(first >= before);
  CHECK(first >= 3);  // today and the two days after

  ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 0);  // waiting for its interval
  clock->advance(std::chrono::hours(24));
  ran = engine.runOnce();
  ENGINE_REQUIRE_OK(ran);
  CHECK(*ran == 1);
  CHECK(samplePartitions(t.url) == first + 1);  // a new day ahead
}
