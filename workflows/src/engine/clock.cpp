#include "workflows/clock.hpp"

#include "common/scaled_time.hpp"

namespace workflows {

FakeClock::FakeClock(TimePoint start) : now_(start) {}

TimePoint FakeClock::now() const {
  std::lock_guard lock(mutex_);
  return now_;
}

void FakeClock::advance(Duration by) {
  std::lock_guard lock(mutex_);
  now_ += by;
}

void FakeClock::set(TimePoint to) {
  std::lock_guard lock(mutex_);
  now_ = to;
}

TimePoint ScaledClock::now() const {
  return common::scaledTime(epoch_, scale_, std::chrono::system_clock::now());
}

std::shared_ptr<Clock> systemClock() {
  static const auto clock = std::make_shared<SystemClock>();
  return clock;
}

}  // namespace workflows
