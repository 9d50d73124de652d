// What a replica's claim may do, from its liveness lock as the keeper thread last saw it
// (inventory/replica_liveness.hpp). A pure decision, tested as a unit.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace workflows::detail {

struct ClaimLiveness {
  bool claim = true;                // false: claim nothing now
  std::optional<std::int32_t> key;  // stamped on the runs claimed (none: lease expiry only)
  bool take_over = false;           // also take the runs of replicas whose lock is gone
};

// `has_lock`: this replica keeps a liveness lock (start() with take_over_on_disconnect);
// `held`: how long it has been held without a break (zero: not held now). Without a lock
// (runOnce() callers) claims carry no key. With one that is not held now (the database
// restarting, or unreachable when the replica started) nothing is claimed: a run claimed then
// would carry no key, and if this replica died before its next claim the run would wait for
// its lease to expire instead of moving at once. Others' runs are taken only after the grace
// period, so that after a PostgreSQL restart each live replica has its own lock back first.
inline ClaimLiveness claimLivenessFor(bool has_lock, std::int32_t key,
                                      std::chrono::steady_clock::duration held,
                                      std::chrono::steady_clock::duration grace) {
  if (!has_lock) return {};
  if (held <= std::chrono::steady_clock::duration::zero()) return {false, std::nullopt, false};
  return {true, key, held >= grace};
}

}  // namespace workflows::detail
