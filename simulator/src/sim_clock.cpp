#include "simulator/sim_clock.hpp"

namespace sim {

SimClock::SimClock(double scale) : scale_(scale > 0 ? scale : 1.0),
                                   start_(std::chrono::steady_clock::now()) {}

double SimClock::now() const {
  std::chrono::duration<double> real = std::chrono::steady_clock::now() - start_;
  return real.count() * scale_ + offset_.load();
}

std::chrono::steady_clock::duration SimClock::realDuration(double simSeconds) const {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(simSeconds / scale_));
}

void SimClock::advance(double simSeconds) {
  double current = offset_.load();
  while (!offset_.compare_exchange_weak(current, current + simSeconds)) {
  }
}

}  // namespace sim
