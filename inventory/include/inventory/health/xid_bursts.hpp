// XID errors grouped into bursts: the same XID again within the window extends the burst it
// belongs to rather than being one more event (a failing GPU logs the same XID hundreds of times).
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "inventory/health/time.hpp"

namespace inventory::health {

struct XidOccurrence {
  int xid = 0;
  Seconds at;
};

struct XidBurst {
  std::optional<long long> id;  // set for stored bursts, nullopt for ones opened now
  int xid = 0;
  Seconds first_at;
  Seconds last_at;
  long long count = 0;
};

struct BurstUpdate {
  std::vector<XidBurst> extended;  // stored bursts that grew (id set)
  std::vector<XidBurst> opened;    // new bursts, each also an event
};

// `latest`: the most recent stored burst of each XID of the GPU (at most one per XID). Each
// occurrence, oldest first, joins its XID's current burst when it is within `window` of the
// burst's last occurrence (or before it: late arrivals), else opens a new burst.
BurstUpdate groupXids(const std::vector<XidBurst>& latest, std::vector<XidOccurrence> seen,
                      std::chrono::seconds window);

}  // namespace inventory::health
