// Per-BMC random draws for transport faults and latency, from a seeded generator so that a run
// with the same seed and the same request sequence fails the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

#include "simulator/faults.hpp"

namespace sim::engine {

enum class FaultOutcome { kNone, kReset, kTimeout, kHttp5xx, kMalformed };

class FaultDice {
 public:
  // `index` separates the streams of BMCs that share the fleet seed.
  FaultDice(std::uint64_t seed, std::uint64_t index);
  // One draw per request; rates are checked in the order reset, timeout, 5xx, malformed.
  FaultOutcome draw(const TransportFaults& faults);
  // Log-normal around the median (sigma 0: exactly the median), times the slow factor.
  std::chrono::microseconds latency(const LatencyModel& model);

 private:
  std::mt19937_64 rng_;
};

}  // namespace sim::engine
