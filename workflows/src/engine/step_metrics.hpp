// Per-step figures of the engine for /metrics: how long runs spend in each step, how steps end,
// and why they fail. Plain mutex and maps: updated once per step execution.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "workflows/engine.hpp"

namespace workflows::detail {

class StepMetrics {
 public:
  // 0.01 s (a quick database step) to 4 h (a long burn-in).
  static constexpr std::array<double, 18> kBuckets = {
      0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 3600, 7200, 14400};

  // A run left `step` after `seconds` in it (retries and waits included).
  void observeDuration(const std::string& workflow, const std::string& step, double seconds);
  void countOutcome(const std::string& workflow, const std::string& step,
                    const std::string& outcome);
  void countFailure(const std::string& workflow, const std::string& step,
                    const std::string& reason);
  void render(std::string& out, const EngineStats& stats) const;

 private:
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size() + 1> buckets{};  // last: +Inf
    double sum = 0;
    std::uint64_t count = 0;
  };
  using StepKey = std::pair<std::string, std::string>;
  using LabelledKey = std::tuple<std::string, std::string, std::string>;

  mutable std::mutex mutex_;
  std::map<StepKey, Histogram> durations_;
  std::map<LabelledKey, std::uint64_t> outcomes_;
  std::map<LabelledKey, std::uint64_t> failures_;
};

}  // namespace workflows::detail
