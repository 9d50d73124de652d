// One boot of one simulated host, shared by its thread and the booter. A newer boot of the same
// host supersedes it; Fleet::stop ends it. Both wake whatever it is waiting on.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace sim::host {

class BootRun {
 public:
  // Waits `duration` (real time) unless the run ends first; false when it ended.
  bool sleepFor(std::chrono::steady_clock::duration duration) {
    std::unique_lock lock(mutex_);
    return !changed_.wait_for(lock, duration, [this] { return superseded_ || stopped_; });
  }
  // Non-blocking: still the host's latest boot, and the fleet still running.
  bool current() const {
    std::lock_guard lock(mutex_);
    return !superseded_ && !stopped_;
  }
  // For the agent: a host that rebooted is gone and sends nothing more, so a superseded run
  // blocks here until the fleet stops. False once the run is over.
  bool holdIfGone() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !superseded_ || stopped_; });
    return !stopped_;
  }
  void supersede() { set(superseded_); }
  void stop() { set(stopped_); }

 private:
  void set(bool& flag) {
    {
      std::lock_guard lock(mutex_);
      flag = true;
    }
    changed_.notify_all();
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool superseded_ = false;
  bool stopped_ = false;
};

}  // namespace sim::host
