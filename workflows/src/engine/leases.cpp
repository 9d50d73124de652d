// Keeping the runs this replica executes: the heartbeat renews every in-flight lease in one
// round trip, and fence()/recordIntent() let a step confirm, right before a dangerous action,
// that the run is still its own. An execution that learns it lost its lease is fenced for good:
// epochs only grow, so a lost lease never comes back.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine_impl.hpp"

namespace workflows {

using detail::InFlightLeases;

Duration Engine::Impl::heartbeatEvery() const {
  if (options.heartbeat) return std::max(*options.heartbeat, Duration::zero());
  return std::max(options.lease / 3, Duration(1));
}

void Engine::Impl::noteLost(const detail::Execution& execution, const char* how) {
  fenced.fetch_add(1);
  spdlog::warn(
      "workflow run {}: {} found the lease (epoch {}) gone while step {} executes; "
      "its outcome will be dropped",
      execution.hold.run_id, how, execution.hold.epoch, execution.step);
}

common::Result<std::size_t> Engine::Impl::renewInFlight() {
  const auto asked = in_flight.toRenew();
  if (asked.empty()) return std::size_t{0};
  renewal_round_trips.fetch_add(1);
  PROV_ASSIGN(auto held,
              inventory::renewLeases(*db, options.owner, asked, clock->now(), options.lease));
  lease_renewals.fetch_add(held.size());
  for (const auto& execution : in_flight.markLost(asked, held)) noteLost(*execution, "heartbeat");
  return held.size();
}

void Engine::Impl::heartbeatLoop(Duration every) {
  std::unique_lock lock(mutex);
  while (!heartbeat_stopping) {
    heartbeat_cv.wait_for(lock, every, [this] { return heartbeat_stopping; });
    if (heartbeat_stopping) break;
    lock.unlock();
    auto renewed = renewInFlight();
    if (!renewed) {
      // Not lost for that: the leases run on, and the next beat or the outcome's write decides.
      spdlog::warn("workflow engine {}: cannot renew leases: {}", options.owner,
                   renewed.error().message);
    }
    lock.lock();
  }
}

bool Engine::Impl::confirmLease(const InFlightLeases::Handle& execution) {
  if (in_flight.lost(execution)) return false;
  auto held =
      inventory::renewLeases(*db, options.owner, {execution->hold}, clock->now(), options.lease);
  if (!held) {
    spdlog::warn("workflow run {}: cannot confirm the lease: {}", execution->hold.run_id,
                 held.error().message);
    return false;
  }
  if (held->empty()) {
    if (in_flight.markLost(execution)) noteLost(*execution, "fence()");
    return false;
  }
  lease_renewals.fetch_add(1);
  return true;
}

bool Engine::Impl::recordIntent(const InFlightLeases::Handle& execution,
                                const nlohmann::json& data) {
  if (in_flight.lost(execution)) return false;
  const std::string context = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto written = inventory::recordRunIntent(*db, options.owner, execution->hold, context,
                                            clock->now(), options.lease);
  if (!written) {
    spdlog::warn("workflow run {}: cannot record the intent of step {}: {}", execution->hold.run_id,
                 execution->step, written.error().message);
    return false;
  }
  if (!*written) {
    if (in_flight.markLost(execution)) noteLost(*execution, "recordIntent()");
    return false;
  }
  intents_recorded.fetch_add(1);
  lease_renewals.fetch_add(1);
  return true;
}

LeaseFence Engine::Impl::fenceFor(const InFlightLeases::Handle& execution) {
  LeaseFence fence;
  fence.confirm = [this, execution] { return confirmLease(execution); };
  fence.record = [this, execution](const nlohmann::json& data) {
    return recordIntent(execution, data);
  };
  return fence;
}

common::Result<std::size_t> Engine::renewLeases() {
  return impl_->renewInFlight();
}

}  // namespace workflows
