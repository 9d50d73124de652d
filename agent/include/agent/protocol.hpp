// The agent <-> service wire protocol: in-band facts, tasks (burn-in plans), progress and results.
// Both the service and provisioner-agent use these types; JSON is parsed without exceptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agent/wipe.hpp"
#include "common/result.hpp"

namespace agent {

struct PcieLink {
  int current_width = 0;  // lanes
  int max_width = 0;
  int current_gen = 0;
  int max_gen = 0;
};

struct GpuFacts {
  int index = 0;
  std::string uuid;    // "GPU-..."
  std::string serial;  // board serial; the inventory's identity for the part
  std::string model;   // "NVIDIA H100 80GB HBM3"
  std::uint64_t memory_mib = 0;
  PcieLink pcie;
  std::string driver_version;
  bool ecc_enabled = false;
};

struct NicFacts {
  std::string name;  // "enp1s0f0"
  std::string mac;   // normalised lower-case aa:bb:...
};

struct Facts {
  std::string host_serial;
  std::string agent_version;
  std::string backend;  // "cuda" or "simulated"
  std::vector<GpuFacts> gpus;
  std::vector<NicFacts> nics;
};

// Burn-in tests, by wire name.
inline constexpr std::string_view kTestCompute = "compute";             // TFLOP/s, dense GEMM
inline constexpr std::string_view kTestHbmBandwidth = "hbm_bandwidth";  // GB/s, device copy
inline constexpr std::string_view kTestPcieH2D = "pcie_h2d";            // GB/s, pinned host->device
inline constexpr std::string_view kTestPcieD2H = "pcie_d2h";            // GB/s, pinned device->host
inline constexpr std::string_view kTestPeerBandwidth = "peer_bandwidth";  // GB/s, GPU->GPU
bool isKnownTest(std::string_view name);

struct PlanTest {
  std::string name;        // one of the tests above
  double duration_s = 10;  // how long the test runs per GPU (the simulated backend scales it)
  std::optional<double> threshold;  // fraction of nominal; the plan's default when absent
};

// A burn-in plan (per hardware profile). Defaults are what a demanding fleet would use.
struct BurnInPlan {
  std::vector<PlanTest> tests;
  double default_threshold = 0.85;  // a result below this fraction of nominal fails
  double outlier_z = -3.5;          // robust z-score at or below which a GPU is an outlier
  int min_batch_size = 8;           // fewer peers than this: no outlier check (too little data)
  // The batch's spread is taken as at least this fraction of its median, so a tight batch does not
  // turn measurement noise into an outlier (see robustZ): with -3.5, a part must be 7% below its
  // peers. 1% flagged ~1% of healthy nodes at 10,000 GPUs (bench/rack_bringup).
  double outlier_min_spread = 0.02;
  int expected_gpus = 0;                  // 0: take the count the inventory expects, if any
  int max_temperature_c = 87;             // hotter during the run fails ("thermal")
  std::uint64_t max_corrected_ecc = 100;  // more corrected ECC errors during the run fails
};

// The defaults above with all five tests.
BurnInPlan defaultBurnInPlan();
// InvalidArgument "invalid_plan" naming the field (unknown test, threshold outside (0, 1],
// duration outside (0, 86400], no tests).
common::Result<BurnInPlan> parseBurnInPlan(const nlohmann::json& object);
nlohmann::json toJson(const BurnInPlan& plan);

enum class TaskKind { kNone, kBurnIn, kWipe };
std::string_view toString(TaskKind kind);  // "none", "burn_in", "wipe"

struct Task {
  std::int64_t id = 0;
  TaskKind kind = TaskKind::kNone;
  BurnInPlan plan;  // for kBurnIn
  WipePlan wipe;    // for kWipe
};

struct Progress {
  std::string test;    // the test running, or "" between tests
  int gpu_index = -1;  // -1: all GPUs / not GPU-specific
  double percent = 0;  // of the whole task, 0..100
  std::string message;
};

struct Measurement {
  std::string gpu_serial;
  std::string gpu_uuid;
  std::string gpu_model;
  std::string test;
  double value = 0;
  std::string unit;         // "TFLOP/s", "GB/s"
  std::string peer_serial;  // peer_bandwidth only: the other GPU
};

// What the health watch saw on one GPU during the whole task.
struct GpuHealth {
  std::string gpu_serial;
  std::uint64_t ecc_corrected = 0;    // new during the run
  std::uint64_t ecc_uncorrected = 0;  // new during the run
  std::vector<int> xid_events;
  int max_temperature_c = 0;
  std::vector<std::string> throttle_reasons;  // "hw_thermal", "sw_thermal", "hw_slowdown", ...
};

struct TaskResult {
  std::int64_t task_id = 0;
  std::vector<Measurement> measurements;
  std::vector<GpuHealth> health;
  std::string error;               // non-empty when the agent could not run the task at all
  std::optional<WipeReport> wipe;  // a wipe task's report
};

nlohmann::json toJson(const Facts& facts);
nlohmann::json toJson(const Task& task);
nlohmann::json toJson(const Progress& progress);
nlohmann::json toJson(const TaskResult& result);
// Each: InvalidArgument "invalid_<thing>" with the field path ("gpus[2].serial") on bad input;
// strings are length-capped, numbers range-checked, MACs normalised.
common::Result<Facts> parseFacts(const nlohmann::json& object);
common::Result<Task> parseTask(const nlohmann::json& object);
common::Result<Progress> parseProgress(const nlohmann::json& object);
common::Result<TaskResult> parseTaskResult(const nlohmann::json& object);

}  // namespace agent
