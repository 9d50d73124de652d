#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "agent/wipe.hpp"

using nlohmann::json;

namespace {

agent::WipeReport sampleReport() {
  agent::WipeReport report;
  report.tool_version = "0.1.0";
  report.backend = "simulated";
  agent::GpuWipeReport gpu;
  gpu.gpu_serial = "S0";
  gpu.gpu_uuid = "GPU-0";
  gpu.gpu_model = "NVIDIA H200";
  gpu.total_bytes = 150ULL << 30;
  gpu.covered_bytes = 148ULL << 30;
  gpu.unreachable.push_back({"driver_reserved_or_in_use", 2ULL << 30});
  gpu.passes.push_back({"pattern", gpu.covered_bytes, gpu.covered_bytes, 3, 40.5, 3900.25});
  gpu.bytes_written = gpu.covered_bytes;
  gpu.bytes_verified = gpu.covered_bytes;
  gpu.mismatches = 3;
  gpu.seconds = 40.5;
  gpu.gbps = 3900.25;
  gpu.reset = "not_permitted";
  gpu.started_at = "2026-12-03T23:10:00Z";
  gpu.finished_at = "2026-12-03T23:11:00Z";
  report.gpus.push_back(gpu);
  agent::DriveReport drive;
  drive.serial = "SN-1-NVME0";
  drive.model = "Sim NVMe";
  drive.interface = "nvme";
  drive.capacity_bytes = 3840ULL * 1000 * 1000 * 1000;
  drive.method = "nvme_sanitize_block";
  drive.nist_level = "purge";
  drive.technique = "block erase";
  drive.fallbacks.push_back({"nvme_sanitize_crypto", "not supported by the controller"});
  drive.verification.canaries_written = 16;
  drive.verification.sample_coverage = 0.01;
  drive.verification.sample_blocks = 1000;
  drive.result = "passed";
  report.drives.push_back(drive);
  return report;
}

std::string badReportField(const json& report) {
  auto parsed = agent::parseWipeReport(report);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().code == "invalid_result");
  return parsed.error().field;
}

}  // namespace

TEST_CASE("agent wipe plan fills defaults and round trips", "[agent][wipe]") {
  auto plan = agent::parseWipePlan(json{{"seed", 42}});
  REQUIRE(plan);
  CHECK(plan->seed == 42);
  CHECK(plan->pattern == 0xA5A5A5A5u);
  CHECK(plan->reset_gpus);
  CHECK(plan->drive_sample_coverage == 0.01);
  CHECK(plan->skip_drive_serials.empty());

  agent::WipePlan custom;
  custom.seed = UINT64_MAX;
  custom.pattern = 0xFFFFFFFFu;
  custom.reset_gpus = false;
  custom.drive_sample_coverage = 1;
  custom.skip_drive_serials = {"D1", "D2"};
  auto again = agent::parseWipePlan(agent::toJson(custom));
  REQUIRE(again);
  CHECK(again->seed == UINT64_MAX);
  CHECK(again->pattern == 0xFFFFFFFFu);
  CHECK_FALSE(again->reset_gpus);
  CHECK(again->drive_sample_coverage == 1);
  CHECK(again->skip_drive_serials == std::vector<std::string>{"D1", "D2"});
}

TEST_CASE("agent wipe plan names the bad field", "[agent][wipe]") {
  auto field = [](const json& plan) {
    auto parsed = agent::parseWipePlan(plan);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code == "invalid_wipe_plan");
    return parsed.error().field;
  };
  CHECK(field(json::object()) == "seed");
  CHECK(field(json{{"seed", -1}}) == "seed");
  CHECK(field(json{{"seed", 1}, {"pattern", 1ULL << 32}}) == "pattern");
  CHECK(field(json{{"seed", 1}, {"reset_gpus", "yes"}}) == "reset_gpus");
  CHECK(field(json{{"seed", 1}, {"drive_sample_coverage", 0}}) == "drive_sample_coverage");
  CHECK(field(json{{"seed", 1}, {"drive_sample_coverage", 1.5}}) == "drive_sample_coverage");
  CHECK(field(json{{"seed", 1}, {"skip_drive_serials", {"ok", ""}}}) == "skip_drive_serials[1]");
  CHECK(field(json{{"seed", 1}, {"skip_drive_serials", {3}}}) == "skip_drive_serials[0]");
  CHECK(field(json::array()) == "");
}

TEST_CASE("agent wipe tasks carry their plan", "[agent][wipe]") {
  agent::Task task;
  task.id = 7;
  task.kind = agent::TaskKind::kWipe;
  task.wipe.seed = 99;
  task.wipe.skip_drive_serials = {"OOB-1"};
  json wire = agent::toJson(task);
  CHECK(wire["kind"] == "wipe");
  CHECK(wire["wipe"]["seed"] == 99);
  CHECK_FALSE(wire.contains("plan"));
  auto parsed = agent::parseTask(wire);
  REQUIRE(parsed);
  CHECK(parsed->kind == agent::TaskKind::kWipe);
  CHECK(parsed->wipe.seed == 99);
  CHECK(parsed->wipe.skip_drive_serials == std::vector<std::string>{"OOB-1"});

  auto missing = agent::parseTask(json{{"id", 7}, {"kind", "wipe"}});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field == "wipe");
  auto bad = agent::parseTask(json{{"id", 7}, {"kind", "wipe"}, {"wipe", {{"pattern", 1}}}});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "invalid_task");
  CHECK(bad.error().field == "wipe.seed");
}

TEST_CASE("agent wipe report round trips inside a task result", "[agent][wipe]") {
  agent::TaskResult result;
  result.task_id = 7;
  result.wipe = sampleReport();
  json wire = agent::toJson(result);
  CHECK(wire["wipe"]["tool"] == "provisioner-agent");
  CHECK(wire["wipe"]["gpus"][0]["passes"][0]["name"] == "pattern");
  CHECK(wire["wipe"]["drives"][0]["verification"]["method"] == "canary+sample");
  auto parsed = agent::parseTaskResult(wire);
  REQUIRE(parsed);
  REQUIRE(parsed->wipe);
  CHECK(agent::toJson(*parsed->wipe) == wire["wipe"]);
  const auto& gpu = parsed->wipe->gpus.at(0);
  CHECK(gpu.covered_bytes == 148ULL << 30);
  CHECK(gpu.unreachable.at(0).what == "driver_reserved_or_in_use");
  CHECK(gpu.passes.at(0).mismatches == 3);
  CHECK(gpu.reset == "not_permitted");
  const auto& drive = parsed->wipe->drives.at(0);
  CHECK(drive.fallbacks.at(0).method == "nvme_sanitize_crypto");
  CHECK(drive.verification.sample_blocks == 1000);

  agent::TaskResult plain;
  plain.task_id = 8;
  json plain_wire = agent::toJson(plain);
  CHECK_FALSE(plain_wire.contains("wipe"));
  auto plain_parsed = agent::parseTaskResult(plain_wire);
  REQUIRE(plain_parsed);
  CHECK_FALSE(plain_parsed->wipe);
}

TEST_CASE("agent wipe report names the bad field", "[agent][wipe]") {
  json good = agent::toJson(sampleReport());
  REQUIRE(agent::parseWipeReport(good));
  auto with = [&](const std::string& pointer, json value) {
    json copy = good;
    copy[json::json_pointer(pointer)] = std::move(value);
    return copy;
  };
  CHECK(badReportField(with("/backend", "gpu")) == "backend");
  CHECK(badReportField(with("/gpus/0/passes/0/name", "scrub")) == "gpus[0].passes[0].name");
  CHECK(badReportField(with("/gpus/0/passes/0/mismatches", -1)) == "gpus[0].passes[0].mismatches");
  CHECK(badReportField(with("/gpus/0/reset", "maybe")) == "gpus[0].reset");
  CHECK(badReportField(with("/gpus/0/gbps", -2.0)) == "gpus[0].gbps");
  CHECK(badReportField(with("/drives/0/method", "shred")) == "drives[0].method");
  CHECK(badReportField(with("/drives/0/nist_level", "destroy")) == "drives[0].nist_level");
  CHECK(badReportField(with("/drives/0/result", "ok")) == "drives[0].result");
  CHECK(badReportField(with("/drives/0/verification/sample_coverage", 2)) ==
        "drives[0].verification.sample_coverage");
  CHECK(badReportField(with("/drives/0/error", std::string(2000, 'x'))) == "drives[0].error");
  json many = good;
  many["gpus"] = json::array();
  for (int i = 0; i < 65; ++i) many["gpus"].push_back(good["gpus"][0]);
  CHECK(badReportField(many) == "gpus");

  json in_result = {{"task_id", 3}, {"wipe", with("/drives/0/interface", "usb")}};
  auto parsed = agent::parseTaskResult(in_result);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().field == "wipe.drives[0].interface");
}
