// Simulated time: real time multiplied by a scale, so a 20-minute bring-up runs in seconds.
// Everything in the simulator that "takes time" (power transitions, tasks, session expiry) is
// expressed in simulated seconds and evaluated lazily against this clock: no timers, no threads.
#pragma once

#include <atomic>
#include <chrono>

namespace sim {

class SimClock {
 public:
  using Duration = std::chrono::duration<double>;  // simulated seconds

  explicit SimClock(double scale = 1.0);
  // Simulated seconds since the clock was created.
  double now() const;
  // Real time it takes for `simSeconds` to pass.
  std::chrono::steady_clock::duration realDuration(double simSeconds) const;
  double scale() const { return scale_; }
  // Tests: moves simulated time forward by `simSeconds` at once.
  void advance(double simSeconds);

 private:
  double scale_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<double> offset_{0.0};
};

}  // namespace sim
