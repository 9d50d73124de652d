#include "agent/runner.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace agent {
namespace {

constexpr std::size_t kMaxErrorLength = 256;  // the protocol's string cap

// What the health watch accumulates for one GPU over the run.
struct HealthTrack {
  bool has_baseline = false;
  HealthSample baseline;
  HealthSample last;
  std::vector<int> xids;
  int max_temperature_c = 0;
  std::set<std::string> reasons;
};

class BurnInRun {
 public:
  BurnInRun(std::int64_t task_id, const BurnInPlan& plan, GpuBackend& backend,
            const std::vector<GpuFacts>& gpus, const ProgressCallback& on_progress)
      : plan_(plan),
        backend_(backend),
        gpus_(gpus),
        on_progress_(on_progress),
        tracks_(gpus.size()) {
    result_.task_id = task_id;
    for (const auto& test : plan_.tests) total_steps_ += stepsFor(test.name);
  }

  TaskResult run() {
    if (gpus_.empty()) {
      result_.error = "no GPUs found";
      return std::move(result_);
    }
    sampleAll(/*baseline=*/true);
    for (const auto& test : plan_.tests) {
      if (!runTest(test)) break;
      sampleAll(/*baseline=*/false);
    }
    finish();
    return std::move(result_);
  }

 private:
  int stepsFor(const std::string& test) const {
    if (test == kTestPeerBandwidth && gpus_.size() < 2) return 0;
    return static_cast<int>(gpus_.size());
  }

  bool runTest(const PlanTest& test) {
    for (std::size_t i = 0; i < gpus_.size() && stepsFor(test.name) > 0; ++i) {
      if (!reportProgress(test.name, gpus_[i].index)) {
        noteError("the run was stopped during " + test.name);
        return false;
      }
      measure(test, i);
      ++done_steps_;
    }
    return true;
  }

  bool reportProgress(const std::string& test, int gpu_index) {
    if (!on_progress_) return true;
    Progress progress;
    progress.test = test;
    progress.gpu_index = gpu_index;
    progress.percent = total_steps_ == 0 ? 100.0 : 100.0 * done_steps_ / total_steps_;
    progress.message = "running " + test + " on GPU " + std::to_string(gpu_index);
    return on_progress_(progress);
  }

  common::Result<double> runOn(const PlanTest& test, std::size_t i) {
    int index = gpus_[i].index;
    if (test.name == kTestCompute) return backend_.computeTflops(index, test.duration_s);
    if (test.name == kTestHbmBandwidth) return backend_.hbmBandwidthGbps(index, test.duration_s);
    if (test.name == kTestPcieH2D) return backend_.pcieBandwidthGbps(index, true, test.duration_s);
    if (test.name == kTestPcieD2H) return backend_.pcieBandwidthGbps(index, false, test.duration_s);
    int peer = gpus_[(i + 1) % gpus_.size()].index;
    return backend_.peerBandwidthGbps(index, peer, test.duration_s);
  }

  void measure(const PlanTest& test, std::size_t i) {
    const GpuFacts& gpu = gpus_[i];
    auto value = runOn(test, i);
    if (!value) {
      noteError(describe(gpu) + " " + test.name + ": " + value.error().message);
      return;
    }
    Measurement m{
        gpu.serial, gpu.uuid, gpu.model, test.name, *value, std::string(unitFor(test.name)), {}};
    if (test.name == kTestPeerBandwidth) m.peer_serial = gpus_[(i + 1) % gpus_.size()].serial;
    result_.measurements.push_back(std::move(m));
  }

  void sampleAll(bool baseline) {
    for (std::size_t i = 0; i < gpus_.size(); ++i) {
      auto sample = backend_.sampleHealth(gpus_[i].index);
      if (!sample) {
        noteError(describe(gpus_[i]) + " health: " + sample.error().message);
        continue;
      }
      absorb(tracks_[i], std::move(sample).value(), baseline);
    }
  }

  static void absorb(HealthTrack& track, HealthSample sample, bool baseline) {
    track.max_temperature_c = std::max(track.max_temperature_c, sample.temperature_c);
    track.reasons.insert(sample.throttle_reasons.begin(), sample.throttle_reasons.end());
    // XIDs seen at the baseline predate the run; the sample only says "since the last sample".
    if (!baseline) {
      track.xids.insert(track.xids.end(), sample.new_xid_events.begin(),
                        sample.new_xid_events.end());
    }
    if (baseline && !track.has_baseline) {
      track.baseline = sample;
      track.has_baseline = true;
    }
    track.last = std::move(sample);
  }

  static std::uint64_t delta(std::uint64_t later, std::uint64_t earlier) {
    return later >= earlier ? later - earlier : later;  // a reset counter restarts from zero
  }

  void finish() {
    for (std::size_t i = 0; i < gpus_.size(); ++i) {
      const HealthTrack& track = tracks_[i];
      GpuHealth health;
      health.gpu_serial = gpus_[i].serial;
      health.ecc_corrected =
          delta(track.last.ecc_corrected_total, track.baseline.ecc_corrected_total);
      health.ecc_uncorrected =
          delta(track.last.ecc_uncorrected_total, track.baseline.ecc_uncorrected_total);
      health.xid_events = track.xids;
      health.max_temperature_c = track.max_temperature_c;
      health.throttle_reasons.assign(track.reasons.begin(), track.reasons.end());
      result_.health.push_back(std::move(health));
    }
    if (result_.error.size() > kMaxErrorLength) {
      result_.error.resize(kMaxErrorLength - 3);
      result_.error += "...";
    }
  }

  static std::string describe(const GpuFacts& gpu) {
    return "GPU " + std::to_string(gpu.index) + " (serial " + gpu.serial + ")";
  }

  void noteError(const std::string& message) {
    if (!result_.error.empty()) result_.error += "; ";
    result_.error += message;
  }

  const BurnInPlan& plan_;
  GpuBackend& backend_;
  const std::vector<GpuFacts>& gpus_;
  const ProgressCallback& on_progress_;
  std::vector<HealthTrack> tracks_;
  TaskResult result_;
  int total_steps_ = 0;
  int done_steps_ = 0;
};

}  // namespace

std::string_view unitFor(std::string_view test) {
  return test == kTestCompute ? "TFLOP/s" : "GB/s";
}

TaskResult runBurnIn(std::int64_t task_id, const BurnInPlan& plan, GpuBackend& backend,
                     const std::vector<GpuFacts>& gpus, const ProgressCallback& on_progress) {
  return BurnInRun(task_id, plan, backend, gpus, on_progress).run();
}

}  // namespace agent
