// A decommission bench: the lifecycle bench's simulated DGX H100 and database, with a node in
// service, its decommission opened and the decommission steps' Env (a fresh certificate key).
// The agent is played by calling what its result route calls (recordWipeResult).
#pragma once

#include <catch2/catch.hpp>

#include "decommission/decommission_env.hpp"
#include "images/signing.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/decommissions.hpp"
#include "inventory/nodes.hpp"
#include "lifecycle_b_bench.hpp"
#include "workflows/decommission/wipe_result.hpp"

namespace decommission_test {

using lifecycle_b::Bench;
using nlohmann::json;
using workflows::StepContext;
using workflows::StepOutcome;
using Kind = StepOutcome::Kind;
using std::chrono::seconds;
namespace dc = workflows::decommission;
using DecomStep = StepOutcome (*)(const dc::Env&, StepContext&);

template <class T>
inline T required(common::Result<T> result) {
  INFO((result ? std::string("ok") : result.error().code + ": " + result.error().message));
  REQUIRE(result.ok());
  return std::move(*result);
}

inline std::string describe(const StepOutcome& o) {
  return "kind " + std::to_string(static_cast<int>(o.kind)) + " step " + o.step + " reason " +
         o.reason + " waiting_for " + o.waiting_for + ": " + o.message;
}

// A Dell R750: its three SSDs offer Drive.SecureErase (the DGX recording lists no drive under its
// system's Storage).
inline lifecycle_b::BenchOptions dellNode() {
  lifecycle_b::BenchOptions options;
  options.profile = "dell-r750";
  options.system_path = "/redfish/v1/Systems/System.Embedded.1";
  return options;
}

struct Decommission {
  Decommission() {
    auto& db = bench.db();
    required(inventory::setNodeState(db, bench.nodeId(), "ready", "test", "in service"));
    inventory::DecommissionRequest request;
    request.node_id = bench.nodeId();
    request.reason = "rma";
    request.requested_by = "operator:alice";
    request.wipe_seed = 42;
    request.at = bench.env().deps.clock->now();
    id = required(inventory::createDecommission(db, request)).id;
    key = required(images::generateKeyPair());
    env.roll.life = bench.env();
    env.roll.life.settings.timings.time_scale = 1;  // deadlines in the simulated seconds we advance
    env.settings.signing_key = std::make_shared<const images::KeyPair>(key);
    bench.data()["decommission_id"] = id;
  }

  StepOutcome run(const std::string& name, DecomStep step) {
    return bench.run(name, [this, step](const workflows::lifecycle::Env&, StepContext& ctx) {
      return step(env, ctx);
    });
  }
  StepOutcome drive(const std::string& name, DecomStep step, int max_calls = 200) {
    StepOutcome outcome;
    for (int i = 0; i < max_calls; ++i) {
      outcome = run(name, step);
      if (outcome.kind != Kind::kWait) return outcome;
      bench.advance(seconds(10));
    }
    return outcome;
  }

  json oobDrives() { return bench.data()["wipe"]["plan"]["oob"]; }

  // The agent: it fetched its task (running) and posts `report` as its result.
  dc::WipeTaskOutcome agentReports(const agent::WipeReport& report) {
    auto& db = bench.db();
    const auto task_id = bench.data()["wipe"]["task_id"].get<inventory::Id>();
    auto task = required(inventory::markTaskStarted(db, task_id));
    agent::TaskResult result;
    result.task_id = task_id;
    result.wipe = report;
    const std::string raw = agent::toJson(result).dump();
    return required(dc::recordWipeResult(db, task, result, raw, dc::WipeCriteria{},
                                         bench.env().deps.clock->now()));
  }

  // A clean report: 8 GPUs wiped and every drive the plan left to the agent.
  agent::WipeReport cleanReport() {
    agent::WipeReport report;
    report.tool_version = "1.4.0";
    report.backend = "simulated";
    for (int i = 0; i < 8; ++i) {
      agent::GpuWipeReport gpu;
      gpu.gpu_serial = "GPU-SN-" + std::to_string(i);
      gpu.gpu_model = "NVIDIA H100 80GB HBM3";
      gpu.total_bytes = 80ull << 30;
      gpu.covered_bytes = 79ull << 30;
      for (const char* pass : {"pattern", "random", "zero"}) {
        gpu.passes.push_back({pass, gpu.covered_bytes, gpu.covered_bytes, 0, 1, 1000});
      }
      gpu.started_at = "2026-12-03T23:10:00Z";
      gpu.finished_at = "2026-12-03T23:11:00Z";
      report.gpus.push_back(gpu);
    }
    for (const auto& d : bench.data()["wipe"]["plan"]["in_band"]) {
      if (d.value("serial", "").empty()) continue;
      agent::DriveReport drive;
      drive.serial = d["serial"];
      drive.method = "nvme_sanitize_crypto";
      drive.nist_level = "purge";
      drive.technique = "cryptographic erase";
      drive.verification.sample_coverage = 0.01;
      drive.result = "passed";
      report.drives.push_back(drive);
    }
    return report;
  }

  // drain and wipe_boot, then the agent's report, then wipe_result.
  StepOutcome throughWipe(const agent::WipeReport& report) {
    auto drained = run("drain", dc::drainStep);
    INFO(describe(drained));
    REQUIRE(drained.step == "wipe_boot");
    auto booted = run("wipe_boot", dc::wipeBootStep);
    INFO(describe(booted));
    REQUIRE(booted.step == "wipe_result");
    REQUIRE(run("wipe_result", dc::wipeResultStep).kind == Kind::kWait);
    agentReports(report.gpus.empty() ? cleanReport() : report);
    return run("wipe_result", dc::wipeResultStep);
  }

  // What the engine does on a failure: data "failure", then the failure step.
  StepOutcome failWith(const std::string& step, const StepOutcome& failure) {
    bench.data()["failure"] = {{"step", step},
                               {"reason", failure.reason},
                               {"message", failure.message},
                               {"detail", failure.detail}};
    return run("fail_decommission", dc::failDecommissionStep);
  }

  inventory::Decommission record() { return required(inventory::getDecommission(bench.db(), id)); }

  Bench bench{dellNode()};
  dc::Env env;
  images::KeyPair key;
  inventory::Id id = 0;
};

}  // namespace decommission_test
