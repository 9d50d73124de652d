// Triggers: a discovered BMC starts (or finds) its node lifecycle run; subnet sweeps probe
// /redfish/v1 across a CIDR with bounded concurrency and record what answers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/discovery.hpp"
#include "workflows/clock.hpp"
#include "workflows/engine.hpp"

namespace workflows {

// The lifecycle run for this BMC: started when none is open, else the open one (idempotent).
// A BMC whose node already finished its lifecycle (ready or quarantined) is not started again:
// created is false and run_id the latest run; operators re-run it explicitly.
common::Result<StartResult> startLifecycleFor(Engine& engine, inventory::Database& db,
                                              const inventory::Discovery& discovery,
                                              const std::string& actor);
// The same, telling the lifecycle how to reach the BMC (the run context's "base_url", e.g.
// "http://10.0.0.5:8080" from a sweep); "" leaves the lifecycle's default (https://<address>).
common::Result<StartResult> startLifecycleFor(Engine& engine, inventory::Database& db,
                                              const inventory::Discovery& discovery,
                                              const std::string& actor,
                                              const std::string& base_url);

// "10.0.0.0/24" (IPv4, /16 to /32) to its host addresses (network and broadcast left out below
// /31). InvalidArgument "invalid_cidr" naming what is wrong.
common::Result<std::vector<std::string>> expandCidr(const std::string& cidr);

struct SweepOptions {
  std::size_t max_in_flight = 64;  // probes at once
  Duration probe_timeout{3000};
};

// Probes in the background: each address answering GET <scheme>://<address>:<port>/redfish/v1
// with a Redfish service root (unauthenticated; certificates are pinned later, at claim) is
// recorded as a discovery (source "sweep") and its lifecycle started.
class Sweeper {
 public:
  Sweeper(inventory::DatabasePtr db, std::shared_ptr<Engine> engine, SweepOptions options = {});
  ~Sweeper();  // stop()
  Sweeper(const Sweeper&) = delete;
  Sweeper& operator=(const Sweeper&) = delete;

  // Records the sweep and returns it at once (state "running"); GET it for progress.
  common::Result<inventory::Sweep> start(const inventory::NewSweep& request,
                                         const std::vector<std::string>& addresses);
  // Blocks until the sweep ends (tests, the CLI's --wait uses polling instead).
  void waitIdle();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace workflows
