// Monotonic GPU counters across driver reloads: the increment of each sample and the lifetime
// totals, so that no error is lost or counted twice when a counter starts again from zero.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inventory::health {

// The counters a sample carries. Volatile ones restart at every driver load (NVML's volatile
// ECC counts, NVLink error counters); persistent ones live in the GPU's InfoROM and only restart
// when someone clears them (aggregate ECC, remapped rows, retired pages).
enum class Counter : std::size_t {
  kEccCorrectedVolatile,
  kEccUncorrectedVolatile,
  kEccCorrectedAggregate,
  kEccUncorrectedAggregate,
  kRemappedCorrectable,
  kRemappedUncorrectable,
  kRetiredPages,
  kNvlinkCrcErrors,
  kNvlinkReplayErrors,
  kNvlinkRecoveryErrors,
  kPcieReplayErrors,
  // PCIe error counts as a BMC reports them (Redfish ProcessorMetrics PCIeErrors).
  kPcieCorrectableErrors,
  kPcieNonFatalErrors,
  kPcieFatalErrors,
};
inline constexpr std::size_t kCounterCount = 14;

enum class CounterKind { kVolatile, kPersistent };

CounterKind kindOf(Counter c);
// The stable name used in JSON and the stored state ("ecc_corrected_volatile").
std::string_view nameOf(Counter c);
std::optional<Counter> counterNamed(std::string_view name);
inline Counter counterAt(std::size_t i) {
  return static_cast<Counter>(i);
}

template <class T>
using PerCounter = std::array<T, kCounterCount>;

// What one raw reading adds to the lifetime total.
struct CounterStep {
  std::uint64_t increment = 0;
  bool reset = false;     // the counter started again (driver reload, counters cleared)
  bool baseline = false;  // first reading of this counter: history up to now, not news
};

// The reset rule. A raw value below the last one means the counter restarted from zero, so
// everything it shows now is new: the increment is the raw value, never a negative difference.
// A volatile counter also restarts when the driver epoch (boot id + driver load) changes, even
// if it has already climbed past its last value. The first reading is a baseline: its raw value
// is the history so far (counted once, into the lifetime total).
CounterStep stepCounter(CounterKind kind, std::optional<std::uint64_t> last_raw, std::uint64_t raw,
                        bool epoch_changed);

// Per GPU, between batches: the last raw readings and the lifetime totals.
struct CounterState {
  PerCounter<std::optional<std::uint64_t>> last_raw{};
  PerCounter<std::uint64_t> lifetime{};
  std::string driver_epoch;  // empty: the agent does not report one
  long long resets = 0;      // driver reloads (or clears) seen
};

struct CounterAdvance {
  CounterState state;
  PerCounter<std::optional<CounterStep>> steps{};  // nullopt: not in this reading
  bool driver_reloaded = false;                    // some counter restarted or the epoch changed
};

// Applies one reading (counters absent from it keep their last raw value). An empty epoch
// never counts as a change: agents that do not report one rely on the value rule alone.
CounterAdvance advanceCounters(const CounterState& last,
                               const PerCounter<std::optional<std::uint64_t>>& raw,
                               const std::string& driver_epoch);

// New ECC errors in a step, live: the volatile counter's increment when it was read (it is
// updated at once), else the aggregate one's. 0 for a baseline reading.
std::uint64_t newEccErrors(const CounterAdvance& a, bool uncorrectable);
// New PCIe replays in this reading (0 for the first reading of a driver load).
std::uint64_t newPcieReplays(const CounterAdvance& a);

}  // namespace inventory::health
