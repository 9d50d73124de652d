#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "agent/nominal.hpp"
#include "agent/sim_backend.hpp"
#include "agent/wipe_runner.hpp"

using nlohmann::json;

namespace {

std::unique_ptr<agent::SimulatedGpuBackend> makeSim(json faults) {
  json config = {{"model", "NVIDIA H100 80GB HBM3"}, {"gpus", 3}, {"faults", std::move(faults)}};
  auto parsed = agent::parseSimConfig(config);
  REQUIRE(parsed.ok());
  auto sim = agent::SimulatedGpuBackend::create(std::move(parsed).value());
  REQUIRE(sim.ok());
  return std::move(sim).value();
}

}  // namespace

TEST_CASE("agent wipe runner wipes every GPU and reports real figures", "[agent][wipe]") {
  auto sim = makeSim(json::array());
  auto gpus = sim->discover();
  REQUIRE(gpus.ok());
  agent::WipePlan plan;
  plan.seed = 5;
  agent::WipeReport report = agent::runWipe(plan, *sim, *gpus, "0.1.0");
  CHECK(report.backend == "simulated");
  REQUIRE(report.gpus.size() == 3);
  const auto& gpu = report.gpus[0];
  CHECK(gpu.gpu_serial == (*gpus)[0].serial);
  CHECK(gpu.total_bytes == (*gpus)[0].memory_mib << 20);
  CHECK(gpu.covered_bytes < gpu.total_bytes);
  CHECK(gpu.covered_bytes > gpu.total_bytes * 99 / 100);
  REQUIRE(gpu.passes.size() == 3);
  for (const auto& pass : gpu.passes) {
    CHECK(pass.bytes_written == gpu.covered_bytes);
    CHECK(pass.bytes_verified == gpu.covered_bytes);
    CHECK(pass.mismatches == 0);
  }
  CHECK(gpu.bytes_written == 3 * gpu.covered_bytes);
  double nominal = agent::nominalFor((*gpus)[0].model)->hbm_gbps;
  CHECK(gpu.gbps == Approx(0.45 * nominal));  // each byte is written and read back
  CHECK(gpu.reset == "done");
  CHECK(gpu.error.empty());
  CHECK(gpu.started_at.size() == 20);
}

TEST_CASE("agent wipe runner reports stuck bits, lost GPUs and short coverage", "[agent][wipe]") {
  auto sim = makeSim(json{{{"gpu", 0}, {"kind", "stuck_bits"}, {"count", 7}},
                          {{"gpu", 1}, {"kind", "off_bus_mid_wipe"}},
                          {{"gpu", 2}, {"kind", "less_memory"}, {"factor", 0.5}}});
  auto gpus = sim->discover();
  REQUIRE(gpus.ok());
  agent::WipePlan plan;
  plan.reset_gpus = false;
  agent::WipeReport report = agent::runWipe(plan, *sim, *gpus, "0.1.0");
  REQUIRE(report.gpus.size() == 3);
  CHECK(report.gpus[0].mismatches == 14);  // pattern and random verifies; zero is clean
  CHECK(report.gpus[0].passes.at(2).mismatches == 0);
  CHECK(report.gpus[0].reset == "skipped");
  CHECK(report.gpus[1].error == "GPU fell off the bus during pass random");
  CHECK(report.gpus[1].passes.size() == 1);
  auto again = agent::runWipe(plan, *sim, {(*gpus)[1]}, "0.1.0");
  CHECK(again.gpus.at(0).error.find("fell off the bus") != std::string::npos);
  CHECK(again.gpus.at(0).passes.empty());
  CHECK(report.gpus[2].covered_bytes < report.gpus[2].total_bytes / 2);
  CHECK(report.gpus[2].error.empty());
}
