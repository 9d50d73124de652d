#include "engine/fault_dice.hpp"

#include <algorithm>
#include <cmath>

namespace sim::engine {
namespace {

// splitmix64: spreads nearby seeds (1, 2, 3...) into unrelated generator states.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

FaultDice::FaultDice(std::uint64_t seed, std::uint64_t index) : rng_(mix(seed ^ mix(index))) {}

FaultOutcome FaultDice::draw(const TransportFaults& faults) {
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  double threshold = faults.resetRate;
  if (u < threshold) return FaultOutcome::kReset;
  threshold += faults.timeoutRate;
  if (u < threshold) return FaultOutcome::kTimeout;
  threshold += faults.http5xxRate;
  if (u < threshold) return FaultOutcome::kHttp5xx;
  threshold += faults.malformedRate;
  if (u < threshold) return FaultOutcome::kMalformed;
  return FaultOutcome::kNone;
}

std::chrono::microseconds FaultDice::latency(const LatencyModel& model) {
  if (model.medianMs <= 0) return std::chrono::microseconds(0);
  double ms = model.medianMs;
  if (model.sigma > 0) ms *= std::exp(model.sigma * std::normal_distribution<double>()(rng_));
  ms *= model.slowFactor > 0 ? model.slowFactor : 1.0;
  ms = std::min(ms, 600'000.0);  // a ten-minute cap keeps a wild draw from holding forever
  return std::chrono::microseconds(static_cast<std::int64_t>(ms * 1000.0));
}

}  // namespace sim::engine
