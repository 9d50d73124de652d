#include "in_flight.hpp"

#include <set>

namespace workflows::detail {

InFlightLeases::Handle InFlightLeases::add(inventory::LeaseHold hold, std::string step) {
  auto execution = std::make_shared<Execution>();
  execution->hold = hold;
  execution->step = std::move(step);
  std::lock_guard lock(mutex_);
  executions_[{hold.run_id, hold.epoch}] = execution;
  return execution;
}

void InFlightLeases::remove(const Handle& execution) {
  std::lock_guard lock(mutex_);
  auto it = executions_.find({execution->hold.run_id, execution->hold.epoch});
  if (it != executions_.end() && it->second == execution) executions_.erase(it);
}

std::vector<inventory::LeaseHold> InFlightLeases::toRenew() const {
  std::lock_guard lock(mutex_);
  std::vector<inventory::LeaseHold> holds;
  holds.reserve(executions_.size());
  for (const auto& [key, execution] : executions_) {
    if (!execution->lost && !execution->writing) holds.push_back(execution->hold);
  }
  return holds;
}

std::vector<InFlightLeases::Handle> InFlightLeases::markLost(
    const std::vector<inventory::LeaseHold>& asked, const std::vector<inventory::LeaseHold>& held) {
  std::set<Key> kept;
  for (const auto& h : held) kept.insert({h.run_id, h.epoch});
  std::vector<Handle> marked;
  std::lock_guard lock(mutex_);
  for (const auto& h : asked) {
    const Key key{h.run_id, h.epoch};
    if (kept.count(key) > 0) continue;
    auto it = executions_.find(key);
    // Gone or writing: the outcome's own fenced write tells the truth (and clears the lease,
    // which is why a renewal racing it finds nothing).
    if (it == executions_.end() || it->second->writing || it->second->lost) continue;
    it->second->lost = true;
    marked.push_back(it->second);
  }
  return marked;
}

bool InFlightLeases::markLost(const Handle& execution) {
  std::lock_guard lock(mutex_);
  if (execution->lost) return false;
  execution->lost = true;
  return true;
}

bool InFlightLeases::lost(const Handle& execution) const {
  std::lock_guard lock(mutex_);
  return execution->lost;
}

bool InFlightLeases::beginWriting(const Handle& execution) {
  std::lock_guard lock(mutex_);
  execution->writing = true;
  return execution->lost;
}

std::size_t InFlightLeases::size() const {
  std::lock_guard lock(mutex_);
  return executions_.size();
}

}  // namespace workflows::detail
