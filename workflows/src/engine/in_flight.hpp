// The runs this replica is executing and the lease each execution holds: what the heartbeat
// renews, and which executions learned they lost their lease (fenced). No I/O: the engine does
// the round trips (leases.cpp) and reports what the database kept.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "inventory/workflow_runs.hpp"

namespace workflows::detail {

// One execution of one step. Guarded by InFlightLeases' mutex.
struct Execution {
  inventory::LeaseHold hold;
  std::string step;
  bool writing = false;  // its outcome is being written: renewals leave it alone
  bool lost = false;     // the lease is gone: no dangerous action, no outcome
};

class InFlightLeases {
 public:
  using Handle = std::shared_ptr<Execution>;

  Handle add(inventory::LeaseHold hold, std::string step);
  void remove(const Handle& execution);

  // The holds to renew: executing, neither lost nor writing their outcome.
  std::vector<inventory::LeaseHold> toRenew() const;
  // After a renewal of `asked` that kept `held`: the executions asked for and not kept, still
  // executing, are marked lost. Returns them (for the log), each only the first time.
  std::vector<Handle> markLost(const std::vector<inventory::LeaseHold>& asked,
                               const std::vector<inventory::LeaseHold>& held);
  // True when this call marked it (it was not lost yet).
  bool markLost(const Handle& execution);
  bool lost(const Handle& execution) const;
  // Its outcome is about to be written: no renewal marks it from now on. Returns lost().
  bool beginWriting(const Handle& execution);
  std::size_t size() const;

 private:
  using Key = std::pair<inventory::Id, std::int64_t>;  // a run can be in flight twice: by epoch
  mutable std::mutex mutex_;
  std::map<Key, Handle> executions_;
};

}  // namespace workflows::detail
