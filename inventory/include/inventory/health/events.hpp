// The health events one reading gives rise to (besides XID bursts, see xid_bursts.hpp): what a
// GPU's timeline keeps forever.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory/health/counters.hpp"
#include "inventory/health/sample.hpp"

namespace inventory::health {

// What the store knew of the GPU before this reading.
struct PriorReading {
  bool known = false;  // any reading stored before
  long long node_id = 0;
  std::string driver_epoch;
  bool remap_pending = false;
  bool remap_failure = false;
};

struct EventDraft {
  std::string kind;
  std::string detail_json;  // a JSON object
};

// first_seen (with the baseline counters), gpu_moved, counter_reset (which counters restarted,
// old and new epoch), ecc_errors, rows_remapped, pages_retired, threshold_crossed and
// threshold_cleared (remap_pending, remap_failure). All at the reading's time.
std::vector<EventDraft> readingEvents(const GpuSample& sample, const PriorReading& prior,
                                      long long node_id, const CounterAdvance& advance);

}  // namespace inventory::health
