#include "inventory/health/counters.hpp"

namespace inventory::health {
namespace {

struct CounterInfo {
  std::string_view name;
  CounterKind kind;
};

constexpr PerCounter<CounterInfo> kCounters{{
    {"ecc_corrected_volatile", CounterKind::kVolatile},
    {"ecc_uncorrected_volatile", CounterKind::kVolatile},
    {"ecc_corrected_aggregate", CounterKind::kPersistent},
    {"ecc_uncorrected_aggregate", CounterKind::kPersistent},
    {"remapped_correctable", CounterKind::kPersistent},
    {"remapped_uncorrectable", CounterKind::kPersistent},
    {"retired_pages", CounterKind::kPersistent},
    {"nvlink_crc_errors", CounterKind::kVolatile},
    {"nvlink_replay_errors", CounterKind::kVolatile},
    {"nvlink_recovery_errors", CounterKind::kVolatile},
    {"pcie_replay_errors", CounterKind::kVolatile},
    {"pcie_correctable_errors", CounterKind::kPersistent},
    {"pcie_nonfatal_errors", CounterKind::kPersistent},
    {"pcie_fatal_errors", CounterKind::kPersistent},
}};

std::size_t indexOf(Counter c) {
  return static_cast<std::size_t>(c);
}

}  // namespace

CounterKind kindOf(Counter c) {
  return kCounters[indexOf(c)].kind;
}

std::string_view nameOf(Counter c) {
  return kCounters[indexOf(c)].name;
}

std::optional<Counter> counterNamed(std::string_view name) {
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    if (kCounters[i].name == name) return counterAt(i);
  }
  return std::nullopt;
}

CounterStep stepCounter(CounterKind kind, std::optional<std::uint64_t> last_raw, std::uint64_t raw,
                        bool epoch_changed) {
  if (!last_raw) return {raw, false, true};
  const bool restarted = raw < *last_raw || (kind == CounterKind::kVolatile && epoch_changed);
  if (restarted) return {raw, true, false};
  return {raw - *last_raw, false, false};
}

CounterAdvance advanceCounters(const CounterState& last,
                               const PerCounter<std::optional<std::uint64_t>>& raw,
                               const std::string& driver_epoch) {
  CounterAdvance out;
  out.state = last;
  const bool epoch_changed =
      !driver_epoch.empty() && !last.driver_epoch.empty() && driver_epoch != last.driver_epoch;
  out.driver_reloaded = epoch_changed;
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    if (!raw[i]) continue;
    const CounterStep step =
        stepCounter(kCounters[i].kind, last.last_raw[i], *raw[i], epoch_changed);
    out.steps[i] = step;
    out.state.last_raw[i] = *raw[i];
    out.state.lifetime[i] += step.increment;
    out.driver_reloaded = out.driver_reloaded || step.reset;
  }
  if (!driver_epoch.empty()) out.state.driver_epoch = driver_epoch;
  if (out.driver_reloaded) ++out.state.resets;
  return out;
}

namespace {

// New counts a step carries: none for a counter not read, or read for the first time.
std::uint64_t newCounts(const std::optional<CounterStep>& step) {
  return step && !step->baseline ? step->increment : 0;
}

}  // namespace

std::uint64_t newEccErrors(const CounterAdvance& a, bool uncorrectable) {
  const Counter live =
      uncorrectable ? Counter::kEccUncorrectedVolatile : Counter::kEccCorrectedVolatile;
  const Counter stored =
      uncorrectable ? Counter::kEccUncorrectedAggregate : Counter::kEccCorrectedAggregate;
  return newCounts(a.steps[indexOf(live)] ? a.steps[indexOf(live)] : a.steps[indexOf(stored)]);
}

std::uint64_t newPcieReplays(const CounterAdvance& a) {
  return newCounts(a.steps[indexOf(Counter::kPcieReplayErrors)]);
}

}  // namespace inventory::health
