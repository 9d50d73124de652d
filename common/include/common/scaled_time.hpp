// A clock sped up from an epoch on: `scale` seconds pass each real second. Simulated fleets live
// days in minutes with it (`./scripts/demo --scenario health`); every process given the same
// epoch and scale (the service, the simulated hosts) reads the same time.
#pragma once

#include <chrono>

namespace common {

inline std::chrono::system_clock::time_point scaledTime(
    std::chrono::system_clock::time_point epoch, double scale,
    std::chrono::system_clock::time_point real) {
  const std::chrono::duration<double> since = real - epoch;
  return epoch + std::chrono::duration_cast<std::chrono::system_clock::duration>(since * scale);
}

}  // namespace common
