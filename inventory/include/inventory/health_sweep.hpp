// What the out-of-band health sweep (docs/health.md, "The out-of-band sweep") reads and writes:
// which in-service nodes have gone silent, which GPUs placed in them still report, the BMC's
// readings kept in the GPU health history (marked as the BMC's), and each node's last sweep.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/sample.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct HealthSweepNode {
  Id node_id = 0;
  std::string state;
  std::optional<health::Seconds> last_reading;  // the newest agent reading of any of its GPUs
  std::optional<health::Seconds> attempted_at;  // the sweep's last try
  std::optional<health::Seconds> swept_at;      // the sweep's last successful read
  bool reachable = true;                        // whether that last try reached the BMC
};

// The nodes in `states`, with their last agent reading and last sweep.
common::Result<std::vector<HealthSweepNode>> listHealthSweepNodes(
    Database& db, const std::vector<std::string>& states);

struct PlacedGpuReading {
  Id node_id = 0;
  std::string serial;
  std::optional<health::Seconds> last_sample;  // its newest agent reading from this node, if any
};

// The GPUs placed (and not removed) in nodes in `states`, with their newest agent reading taken
// in that node: what the silent-GPU signal compares.
common::Result<std::vector<PlacedGpuReading>> listPlacedGpuReadings(
    Database& db, const std::vector<std::string>& states);

struct BmcHealthRecord {
  int samples = 0;     // readings stored
  int duplicates = 0;  // readings for an instant the GPU already had one at, skipped
};

// Stores what the node's BMC reported as readings with source "bmc", in one transaction with the
// node's sweep row (reachable) and the roll-up marks. Never touches a GPU's counter state: its
// lifetime counts stay raw in the sample. Validated as an agent's batch is (400 naming the
// field); an unknown node is not_found.
common::Result<BmcHealthRecord> recordBmcHealth(Database& db, Id node_id,
                                                const health::NodeBatch& batch, health::Seconds now,
                                                const HealthSettings& settings = {});

// Records a sweep of the node that could not read its BMC, and why.
common::Result<void> markHealthSweepUnreachable(Database& db, Id node_id, health::Seconds now,
                                                const std::string& error);

struct HealthSweepRecord {
  Id node_id = 0;
  std::string node_state;
  std::string attempted_at;  // ISO-8601 UTC
  std::string swept_at;      // the last read that succeeded; empty: none yet
  bool reachable = true;
  int gpus = 0;
  std::string error;         // why the last try failed; empty when it did not
  std::string last_reading;  // the newest agent reading of the node's GPUs; empty: none ever
};

struct HealthSweepFilter {
  std::optional<bool> reachable;
  PageRequest page;  // by node id, ascending
};

// The nodes the sweep has tried, with their last agent reading (what an operator looks at when
// a node went silent).
common::Result<std::vector<HealthSweepRecord>> listHealthSweeps(Database& db,
                                                                const HealthSweepFilter& filter);

}  // namespace inventory
