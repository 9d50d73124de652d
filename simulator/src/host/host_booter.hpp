// HostBooter: the hosts of a fleet. Fed every BmcModel's BootEvents (from the engine thread, so
// it only records and hands off), it runs each network boot on a thread of its own
// (boot_sequence.cpp) and keeps each host's status. Owned by the Fleet.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.hpp"
#include "host/boot_run.hpp"
#include "simulator/bmc_model.hpp"
#include "simulator/faults.hpp"
#include "simulator/host_boot.hpp"
#include "simulator/sim_clock.hpp"

namespace sim::host {

// What a boot needs to know about the machine, read when it boots (faults may have changed).
struct Machine {
  BmcIdentity identity;
  std::vector<agent::SimFault> gpuFaults;
  std::uint64_t seed = 1;
  // The GPUs' speed now (1: nominal; firmware_slowdown lowers it), asked at each measurement.
  std::function<double()> gpuSpeed;
};
using MachineLookup = std::function<common::Result<Machine>(const std::string& id)>;

// One host's status, updated only by its current run.
class HostRecord {
 public:
  HostStatus status() const;
  // Starts a boot: supersedes the previous run and resets the per-boot fields.
  std::shared_ptr<BootRun> begin(const std::string& lastBoot);
  // Each applies only while `run` is the host's current one.
  void update(const BootRun& run, const std::function<void(HostStatus&)>& change);
  void log(const BootRun& run, std::string line);

 private:
  mutable std::mutex mutex_;
  HostStatus status_;
  std::shared_ptr<BootRun> current_;
};

class HostBooter {
 public:
  HostBooter(BootSettings settings, const SimClock& clock, MachineLookup lookup);
  ~HostBooter();
  HostBooter(const HostBooter&) = delete;
  HostBooter& operator=(const HostBooter&) = delete;

  void onBoot(const BootEvent& event);
  HostStatus status(const std::string& id) const;
  // Ends every run (agents see the host gone) and joins their threads; later boots are ignored.
  void stop();

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<BootRun> run;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::shared_ptr<HostRecord> record(const std::string& id);
  void reapFinished();

  BootSettings settings_;
  const SimClock& clock_;
  MachineLookup lookup_;
  mutable std::mutex mutex_;
  bool stopping_ = false;
  std::map<std::string, std::shared_ptr<HostRecord>> hosts_;
  std::vector<Worker> workers_;
};

}  // namespace sim::host
