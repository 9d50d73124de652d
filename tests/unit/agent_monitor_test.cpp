// The resident monitor's pure parts and its queue on disk: the batch the service takes, what a
// send's answer means for a queued batch, and a bounded queue that keeps order across restarts.
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "agent/monitor.hpp"
#include "agent/sim_backend.hpp"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("agent-monitor-unit-" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

common::Result<agent::HealthAck> failed(common::ErrorKind kind) {
  return common::Error{kind, "code", "message", {}, {}};
}

}  // namespace

TEST_CASE("a health batch carries one reading per GPU in the service's fields",
          "[agent][monitor]") {
  agent::HealthSample sample;
  sample.ecc_corrected_total = 7;
  sample.ecc_uncorrected_total = 1;
  sample.temperature_c = 71;
  sample.clock_event_mask = 0x40;
  sample.new_xid_events = {79, 48};
  const auto batch =
      agent::healthBatchJson("2026-12-07T10:00:00Z", "580.95.05", {{"GPU-A", sample}});
  CHECK(batch["sampled_at"] == "2026-12-07T10:00:00Z");
  REQUIRE(batch["gpus"].size() == 1);
  const auto& gpu = batch["gpus"][0];
  CHECK(gpu["serial"] == "GPU-A");
  CHECK(gpu["driver_epoch"] == "580.95.05");
  CHECK(gpu["temperature_c"] == 71);
  CHECK(gpu["clock_event_reasons"] == 0x40);
  CHECK(gpu["ecc_corrected_volatile"] == 7);
  CHECK(gpu["ecc_uncorrected_volatile"] == 1);
  REQUIRE(gpu["xids"].size() == 2);
  CHECK(gpu["xids"][1]["xid"] == 48);
  CHECK(agent::formatUtcSeconds(std::chrono::system_clock::time_point{} +
                                std::chrono::seconds{86400 + 61}) == "1970-01-02T00:01:01Z");
}

TEST_CASE("the driver epoch changes with every boot", "[agent][monitor]") {
  CHECK(agent::driverEpoch("580.95.05", "1f0e7c2a-55aa-4c1e-9d2b-0c8e1a2b3c4d\n") ==
        "580.95.05@1f0e7c2a");
  CHECK(agent::driverEpoch("580.95.05", "") == "580.95.05");
  CHECK(agent::driverEpoch("580.95.05", "1f0e7c2a-0000") !=
        agent::driverEpoch("580.95.05", "2a9b0c11-0000"));
}

TEST_CASE("a send's answer decides whether the queued batch goes", "[agent][monitor]") {
  using agent::SendOutcome;
  using common::ErrorKind;
  CHECK(agent::classifySend(agent::HealthAck{}) == SendOutcome::kTaken);
  // The service will never take it: dropping it unblocks the queue.
  CHECK(agent::classifySend(failed(ErrorKind::kInvalidArgument)) == SendOutcome::kRefused);
  CHECK(agent::classifySend(failed(ErrorKind::kConflict)) == SendOutcome::kRefused);
  CHECK(agent::classifySend(failed(ErrorKind::kPayloadTooLarge)) == SendOutcome::kRefused);
  // The credential, not the batch: keep it.
  CHECK(agent::classifySend(failed(ErrorKind::kUnauthenticated)) ==
        SendOutcome::kCredentialRefused);
  CHECK(agent::classifySend(failed(ErrorKind::kPermissionDenied)) ==
        SendOutcome::kCredentialRefused);
  // The service or the network: keep it, try later.
  for (auto kind :
       {ErrorKind::kUnavailable, ErrorKind::kTimeout, ErrorKind::kInternal, ErrorKind::kProtocol}) {
    CHECK(agent::classifySend(failed(kind)) == SendOutcome::kRetryLater);
  }
}

TEST_CASE("the queue keeps batches in order across restarts and drops the oldest when full",
          "[agent][monitor]") {
  TempDir dir;
  {
    auto spool = agent::Spool::open(dir.path, 3);
    REQUIRE(spool);
    for (const char* text : {"a", "b", "c"}) REQUIRE(*spool->append(text) == 0);
    REQUIRE(spool->oldest()->value().text == "a");
  }
  // A write a crash cut short is never sent.
  std::ofstream(dir.path / "00000000000000000009.json.tmp") << "half";
  auto spool = agent::Spool::open(dir.path, 3);
  REQUIRE(spool);
  CHECK(spool->size() == 3);
  CHECK_FALSE(fs::exists(dir.path / "00000000000000000009.json.tmp"));
  auto dropped = spool->append("d");
  REQUIRE(dropped);
  CHECK(*dropped == 1);
  CHECK(spool->dropped() == 1);
  auto oldest = spool->oldest();
  REQUIRE(oldest);
  REQUIRE(oldest->has_value());
  CHECK((*oldest)->text == "b");
  REQUIRE(spool->remove((*oldest)->seq));
  CHECK(spool->oldest()->value().text == "c");
  // The count of dropped batches and the order survive a restart; new ones go after the last.
  auto reopened = agent::Spool::open(dir.path, 3);
  REQUIRE(reopened);
  CHECK(reopened->dropped() == 1);
  REQUIRE(reopened->append("e"));
  std::vector<std::string> order;
  while (auto next = reopened->oldest().value()) {
    order.push_back(next->text);
    REQUIRE(reopened->remove(next->seq));
  }
  CHECK(order == std::vector<std::string>{"c", "d", "e"});
  CHECK(agent::Spool::open(dir.path, 0).error().field == "--spool-max-batches");
}

TEST_CASE("the credential is stored readable by its owner only, and replaced whole",
          "[agent][monitor]") {
  TempDir dir;
  CHECK(agent::readCredential(dir.path).error().code == "credential_missing");
  REQUIRE(agent::writeCredential(dir.path, "nmc_first"));
  REQUIRE(agent::writeCredential(dir.path, "nmc_second"));
  CHECK(*agent::readCredential(dir.path) == "nmc_second");
  struct stat st {};
  REQUIRE(::stat((dir.path / "credential").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_FALSE(fs::exists(dir.path / "credential.tmp"));

  CHECK(agent::readMonitorEndpoint(dir.path).error().code == "endpoint_missing");
  REQUIRE(agent::writeMonitorEndpoint(dir.path, {"https://svc:8443", "42"}));
  auto endpoint = agent::readMonitorEndpoint(dir.path);
  REQUIRE(endpoint);
  CHECK(endpoint->service_url == "https://svc:8443");
  CHECK(endpoint->node_id == "42");
  std::ofstream(dir.path / "service.json") << "{\"service_url\": 3}";
  CHECK(agent::readMonitorEndpoint(dir.path).error().code == "invalid_endpoint_file");
}

TEST_CASE("a simulated GPU in service degrades over the days it is watched", "[agent][monitor]") {
  auto config = agent::parseSimConfigText(R"({"gpus": 3, "in_service_load": true, "faults": [
      {"gpu": 1, "kind": "ecc_growth", "per_day": 40},
      {"gpu": 2, "kind": "temperature_creep", "per_day": 5}]})");
  REQUIRE(config);
  auto sim = agent::SimulatedGpuBackend::create(*config);
  REQUIRE(sim);
  auto now = std::chrono::system_clock::time_point{} + std::chrono::hours{24 * 20000};
  (*sim)->setClock([&now] { return now; });
  std::vector<agent::HealthSample> first;
  for (int i = 0; i < 3; ++i) first.push_back(*(*sim)->sampleHealth(i));
  // Busy from the first reading, as a node in service is.
  CHECK(first[0].power_w > 500);
  CHECK(first[0].sm_clock_mhz == 1980);
  CHECK(first[0].hbm_temperature_c == first[0].temperature_c + 6);
  CHECK(first[0].mem_clock_mhz == 2619);
  CHECK(first[0].gpu_utilization_pct == 98);
  CHECK(first[0].pcie_replay_errors == 0u);
  CHECK(first[1].ecc_corrected_aggregate == first[1].ecc_corrected_total + 10);

  now += std::chrono::hours{24 * 10};
  std::vector<agent::HealthSample> later;
  for (int i = 0; i < 3; ++i) later.push_back(*(*sim)->sampleHealth(i));
  // 40 a day, rising by 40 a day: 40 x (10 + 50) after ten days.
  CHECK(later[1].ecc_corrected_total - first[1].ecc_corrected_total == 2400);
  CHECK(later[1].remapped_correctable == later[1].ecc_corrected_total / 500);
  CHECK(later[0].ecc_corrected_total == first[0].ecc_corrected_total);
  CHECK(later[0].remapped_correctable == 0u);
  // 5 C a day for ten days, against a noise of a few degrees.
  CHECK(later[2].temperature_c - first[2].temperature_c > 35);
  CHECK(std::abs(later[0].temperature_c - first[0].temperature_c) < 16);

  auto missing = agent::parseSimConfigText(R"({"faults": [{"gpu": 0, "kind": "ecc_growth"}]})");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field == "faults[0].per_day");
}

TEST_CASE("a simulated remap fails, or waits for a reset, from its day in service on",
          "[agent][monitor][reset]") {
  auto config = agent::parseSimConfigText(R"({"gpus": 3, "in_service_load": true, "faults": [
      {"gpu": 1, "kind": "remap_failure", "after_days": 4},
      {"gpu": 2, "kind": "remap_pending", "after_days": 5.5}]})");
  REQUIRE(config);
  auto sim = agent::SimulatedGpuBackend::create(*config);
  REQUIRE(sim);
  auto now = std::chrono::system_clock::time_point{} + std::chrono::hours{24 * 20000};
  (*sim)->setClock([&now] { return now; });
  CHECK_FALSE((*sim)->sampleHealth(1)->remap_failure);  // day 0: the days count from here
  CHECK_FALSE((*sim)->sampleHealth(2)->remap_pending);
  // A reset before the remap is pending applies nothing: the remap still comes.
  REQUIRE((*sim)->resetGpu(2));
  now += std::chrono::hours{95};
  CHECK_FALSE((*sim)->sampleHealth(1)->remap_failure);
  now += std::chrono::hours{1};
  CHECK((*sim)->sampleHealth(1)->remap_failure);
  CHECK_FALSE((*sim)->sampleHealth(0)->remap_failure);
  now += std::chrono::hours{36};  // day 5.5
  CHECK((*sim)->sampleHealth(2)->remap_pending);
  CHECK((*sim)->sampleHealth(1)->remap_failure);  // a failure stays
  REQUIRE((*sim)->resetGpu(2));
  CHECK_FALSE((*sim)->sampleHealth(2)->remap_pending);

  auto bad = agent::parseSimConfigText(
      R"({"faults": [{"gpu": 0, "kind": "remap_failure", "after_days": -1}]})");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "faults[0].after_days");
}

TEST_CASE("the batch carries every reading the GPU has and leaves out the rest",
          "[agent][monitor]") {
  agent::HealthSample sample;
  sample.power_w = 612.5;
  sample.sm_clock_mhz = 1410;
  sample.ecc_corrected_aggregate = 107;
  sample.remapped_correctable = 3;
  sample.remapped_uncorrectable = 0;
  sample.remap_pending = true;
  sample.nvlink_crc_errors = 18;
  sample.hbm_temperature_c = 71;
  sample.mem_clock_mhz = 2619;
  sample.pcie_replay_errors = 4;
  sample.gpu_utilization_pct = 97;
  sample.pcie_correctable_errors = 41;
  sample.pcie_nonfatal_errors = 2;
  const auto gpu = agent::healthBatchJson("2026-12-07T10:00:00Z", "e", {{"G", sample}})["gpus"][0];
  CHECK(gpu["power_w"] == 612.5);
  CHECK(gpu["sm_clock_mhz"] == 1410);
  CHECK(gpu["ecc_corrected_aggregate"] == 107);
  CHECK(gpu["remapped_correctable"] == 3);
  CHECK(gpu["remap_pending"] == true);
  CHECK(gpu["remap_failure"] == false);
  CHECK(gpu["nvlink_crc_errors"] == 18);
  CHECK(gpu["hbm_temperature_c"] == 71);
  CHECK(gpu["mem_clock_mhz"] == 2619);
  CHECK(gpu["pcie_replay_errors"] == 4);
  CHECK(gpu["gpu_utilization_pct"] == 97);
  CHECK(gpu["pcie_correctable_errors"] == 41);
  CHECK(gpu["pcie_nonfatal_errors"] == 2);
  CHECK_FALSE(gpu.contains("pcie_fatal_errors"));  // an older driver has none
  CHECK_FALSE(gpu.contains("retired_pages"));      // an H100 has none
  CHECK_FALSE(gpu.contains("ecc_uncorrected_aggregate"));
  // Without remap counts the flags say nothing: they are left out, not sent as false.
  const auto bare = agent::healthBatchJson("2026-12-07T10:00:00Z", "e", {{"G", {}}})["gpus"][0];
  CHECK_FALSE(bare.contains("remap_pending"));
  CHECK_FALSE(bare.contains("power_w"));
  CHECK_FALSE(bare.contains("hbm_temperature_c"));
}

TEST_CASE("a resident GPU reset applies the pending remap once, journaled across restarts",
          "[agent][monitor][reset]") {
  TempDir dir;
  auto config = agent::parseSimConfigText(R"({"gpus": 3, "in_service_load": true, "faults": [
      {"gpu": 1, "kind": "remap_pending"},
      {"gpu": 2, "kind": "remap_pending"}, {"gpu": 2, "kind": "reset_fails"}]})");
  REQUIRE(config);
  auto sim = agent::SimulatedGpuBackend::create(*config);
  REQUIRE(sim);
  auto gpus = (*sim)->discover();
  REQUIRE(gpus);
  CHECK((*sim)->sampleHealth(1)->remap_pending);
  CHECK_FALSE((*sim)->sampleHealth(0)->remap_pending);

  const agent::ResidentTaskOrder order{41, "gpu_reset", (*gpus)[1].serial};
  const auto kNow = std::chrono::system_clock::time_point{} + std::chrono::hours{24 * 20000};
  auto done = agent::carryOutResidentTask(dir.path, order, *gpus, **sim, kNow);
  CHECK(done.succeeded);
  CHECK(done.done_at == agent::formatUtcSeconds(kNow));
  CHECK(done.message == "GPU reset; no row remap pending");
  CHECK((*sim)->resets(1) == 1);
  CHECK_FALSE((*sim)->sampleHealth(1)->remap_pending);
  // Handed over again (the outcome's report was lost): reported again, not reset again.
  auto again =
      agent::carryOutResidentTask(dir.path, order, *gpus, **sim, kNow + std::chrono::minutes{5});
  CHECK(again.succeeded);
  CHECK(again.done_at == done.done_at);
  CHECK((*sim)->resets(1) == 1);
  agent::forgetResidentTask(dir.path, order.id);
  CHECK_FALSE(fs::exists(dir.path / "tasks" / "41"));

  // Killed between "started" and the outcome, the reset having gone through: the GPU says so.
  { std::ofstream(dir.path / "tasks" / "42") << "started"; }
  auto resumed = agent::carryOutResidentTask(dir.path, {42, "gpu_reset", (*gpus)[1].serial}, *gpus,
                                             **sim, kNow);
  CHECK(resumed.succeeded);
  CHECK(resumed.message.find("before the agent restarted") != std::string::npos);
  CHECK((*sim)->resets(1) == 1);

  // A GPU that refuses the reset, a serial this node does not have, a kind this agent lacks.
  auto refused = agent::carryOutResidentTask(dir.path, {43, "gpu_reset", (*gpus)[2].serial}, *gpus,
                                             **sim, kNow);
  CHECK_FALSE(refused.succeeded);
  CHECK(refused.message.find("in use") != std::string::npos);
  CHECK((*sim)->sampleHealth(2)->remap_pending);
  auto stranger =
      agent::carryOutResidentTask(dir.path, {44, "gpu_reset", "GPU-ELSEWHERE"}, *gpus, **sim, kNow);
  CHECK_FALSE(stranger.succeeded);
  CHECK(stranger.message == "no GPU GPU-ELSEWHERE on this node");
  auto unknown =
      agent::carryOutResidentTask(dir.path, {45, "reflash", (*gpus)[0].serial}, *gpus, **sim, kNow);
  CHECK_FALSE(unknown.succeeded);
  CHECK((*sim)->resets(0) == 0);
}

namespace {

// The plan a gpu_flag_burn_in run sends: the default plan, each test a second.
nlohmann::json shortPlan() {
  auto plan = agent::defaultBurnInPlan();
  for (auto& test : plan.tests) test.duration_s = 1;
  return agent::toJson(plan);
}

}  // namespace

TEST_CASE("a resident burn-in runs the plan on every GPU once and hands the result back",
          "[agent][monitor][burn_in]") {
  TempDir dir;
  auto config = agent::parseSimConfigText(
      R"({"gpus": 2, "in_service_load": true,
          "faults": [{"gpu": 1, "kind": "slow_compute", "factor": 0.5}]})");
  REQUIRE(config);
  auto sim = agent::SimulatedGpuBackend::create(*config);
  REQUIRE(sim);
  auto gpus = (*sim)->discover();
  REQUIRE(gpus);
  const auto kNow = std::chrono::system_clock::time_point{} + std::chrono::hours{24 * 20000};

  const agent::ResidentTaskOrder order{51, "burn_in", (*gpus)[1].serial, shortPlan()};
  auto done = agent::carryOutResidentTask(dir.path, order, *gpus, **sim, kNow);
  INFO(done.message);
  // "succeeded" says it ran: the verdict is the service's.
  CHECK(done.succeeded);
  const auto& result = done.details.at("result");
  CHECK(result.at("task_id") == 51);
  const auto plan = agent::parseBurnInPlan(shortPlan());
  REQUIRE(plan);
  // One figure per test and GPU (peer bandwidth: a ring of the 2 GPUs, a copy from each).
  CHECK(result.at("measurements").size() == plan->tests.size() * 2);
  CHECK(result.at("health").size() == 2);
  auto facts = agent::parseFacts(done.details.at("facts"));
  REQUIRE(facts);
  CHECK(facts->gpus.size() == 2);
  CHECK(facts->backend == "simulated");

  // Handed over again (the report was lost): the journaled result, not a second run; a
  // different plan in the order changes nothing.
  auto one_test = agent::defaultBurnInPlan();
  one_test.tests.resize(1);
  auto again = agent::carryOutResidentTask(
      dir.path, {51, "burn_in", (*gpus)[1].serial, agent::toJson(one_test)}, *gpus, **sim,
      kNow + std::chrono::minutes{5});
  CHECK(again.succeeded);
  CHECK(again.details == done.details);
  CHECK(again.done_at == done.done_at);

  // Killed midway ("started" journaled): run again from the start.
  { std::ofstream(dir.path / "tasks" / "52") << "started"; }
  auto resumed = agent::carryOutResidentTask(
      dir.path, {52, "burn_in", (*gpus)[0].serial, agent::toJson(one_test)}, *gpus, **sim, kNow);
  CHECK(resumed.succeeded);
  CHECK(resumed.details.at("result").at("measurements").size() == 2);

  // A plan this agent cannot run fails the task with the reason, and nothing runs.
  auto bad = agent::carryOutResidentTask(
      dir.path, {53, "burn_in", (*gpus)[0].serial, {{"tests", "all of them"}}}, *gpus, **sim, kNow);
  CHECK_FALSE(bad.succeeded);
  CHECK(bad.message.find("plan") != std::string::npos);
  CHECK(bad.details.empty());
}
