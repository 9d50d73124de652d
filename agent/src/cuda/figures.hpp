// How the burn-in figures are computed from what was timed (pure, unit-tested).
#pragma once

#include <cstdint>

namespace agent::cuda {

// Dense GEMM of n x n by n x n: 2 n^3 floating-point operations each.
inline double gemmTflops(std::uint64_t n, std::uint64_t gemms, double seconds) {
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) *
                       static_cast<double>(n) * static_cast<double>(gemms);
  return seconds > 0 ? flops / seconds / 1e12 : 0;
}

// Decimal gigabytes per second (1 GB = 1e9 bytes, as vendors quote bandwidth).
inline double gigabytesPerSecond(std::uint64_t bytes_per_operation, std::uint64_t operations,
                                 double seconds) {
  const double bytes = static_cast<double>(bytes_per_operation) * static_cast<double>(operations);
  return seconds > 0 ? bytes / seconds / 1e9 : 0;
}

}  // namespace agent::cuda
