// The engine's notion of "now", injected so tests drive timers, backoff and lease expiry without
// waiting. Every timestamp the engine writes (next_run_at, leases, events) comes from here.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>

namespace workflows {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::milliseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
};

// Starts at a fixed instant and moves only when told.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint(std::chrono::hours(24 * 20000)));
  TimePoint now() const override;
  void advance(Duration by);
  void set(TimePoint to);

 private:
  mutable std::mutex mutex_;
  TimePoint now_;
};

// The system clock sped up from `epoch` on (common/scaled_time.hpp): the GPU health history's
// clock when a simulated fleet lives days in minutes.
class ScaledClock final : public Clock {
 public:
  ScaledClock(TimePoint epoch, double scale) : epoch_(epoch), scale_(scale) {}
  TimePoint now() const override;

 private:
  TimePoint epoch_;
  double scale_;
};

std::shared_ptr<Clock> systemClock();

}  // namespace workflows
