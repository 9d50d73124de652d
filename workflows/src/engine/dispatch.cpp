// The replica's threads: one dispatcher claims due runs (as many as workers are idle, in one
// round trip) and hands them to the workers, and one heartbeat renews the leases of the steps
// executing (leases.cpp); runOnce() claims and executes on the calling thread, without a
// heartbeat.
#include <spdlog/spdlog.h>

#include "engine_impl.hpp"

namespace workflows {

// The liveness lock as its keeper thread last saw it (no round trip).
detail::ClaimLiveness Engine::Impl::claimLiveness() const {
  if (!liveness) return detail::claimLivenessFor(false, 0, {}, {});
  return detail::claimLivenessFor(true, liveness->key(), liveness->heldFor(),
                                  options.take_over_grace);
}

common::Result<std::vector<inventory::WorkflowRun>> Engine::Impl::claim(std::size_t limit) {
  const detail::ClaimLiveness live = claimLiveness();
  if (!live.claim) {
    if (!claims_paused.exchange(true)) {
      spdlog::warn("workflow engine {}: liveness lock not held; claiming nothing until it is",
                   options.owner);
    }
    return std::vector<inventory::WorkflowRun>{};
  }
  if (claims_paused.exchange(false)) {
    spdlog::info("workflow engine {}: liveness lock held again; claiming", options.owner);
  }
  claim_round_trips.fetch_add(1);
  auto runs = inventory::claimDueRuns(*db, options.owner, clock->now(), options.lease, limit,
                                      live.key, live.take_over);
  if (runs) claimed.fetch_add(runs->size());
  return runs;
}

void Engine::Impl::poke() {
  {
    std::lock_guard lock(mutex);
    poked = true;
  }
  dispatch_cv.notify_one();
}

void Engine::Impl::dispatchLoop() {
  std::unique_lock lock(mutex);
  const auto idle = [this] {
    const std::size_t taken = busy + queue.size();
    return taken < options.workers ? options.workers - taken : 0;
  };
  while (!stopping) {
    dispatch_cv.wait(lock, [&] { return stopping || idle() > 0; });
    if (stopping) break;
    const std::size_t want = std::min(idle(), options.claim_batch);
    poked = false;
    lock.unlock();
    auto runs = claim(want);
    lock.lock();
    std::size_t got = 0;
    if (runs) {
      got = runs->size();
      for (auto& run : *runs) queue.push_back(std::move(run));
      if (got > 0) work_cv.notify_all();
    } else {
      spdlog::warn("workflow engine {}: cannot claim runs: {}", options.owner,
                   runs.error().message);
    }
    // Fewer due than asked for: nothing more is due until a poll, a signal or a step's outcome.
    if (got < want) {
      dispatch_cv.wait_for(lock, options.poll_interval, [this] { return stopping || poked; });
    }
  }
}

void Engine::Impl::workerLoop() {
  std::unique_lock lock(mutex);
  while (true) {
    work_cv.wait(lock, [this] { return stopping || !queue.empty(); });
    if (stopping) return;  // what is still queued is released by stop()
    inventory::WorkflowRun run = std::move(queue.front());
    queue.pop_front();
    ++busy;
    lock.unlock();
    execute(run);
    lock.lock();
    --busy;
    dispatch_cv.notify_one();
  }
}

common::Result<std::size_t> Engine::runOnce() {
  PROV_ASSIGN(auto runs, impl_->claim(impl_->options.claim_batch));
  for (const auto& run : runs) impl_->execute(run);
  return runs.size();
}

void Engine::start() {
  std::lock_guard lock(impl_->mutex);
  if (impl_->running) return;
  impl_->running = true;
  impl_->stopping = false;
  impl_->poked = true;
  if (impl_->options.take_over_on_disconnect) {
    // Held or not yet (the database unreachable now): claims wait until it is held.
    auto held = inventory::ReplicaLiveness::hold(impl_->db->url());
    if (held) {
      impl_->liveness = std::move(*held);
    } else {
      spdlog::warn(
          "workflow engine {}: no liveness lock ({}); a crash of this replica frees "
          "its runs only at lease expiry",
          impl_->options.owner, held.error().message);
    }
  }
  for (std::size_t i = 0; i < impl_->options.workers; ++i) {
    impl_->workers.emplace_back([this] { impl_->workerLoop(); });
  }
  impl_->dispatcher = std::thread([this] { impl_->dispatchLoop(); });
  impl_->heartbeat_stopping = false;
  const Duration every = impl_->heartbeatEvery();
  if (every > Duration::zero()) {
    impl_->heartbeat = std::thread([this, every] { impl_->heartbeatLoop(every); });
  }
}

void Engine::stop() {
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->running) return;
    impl_->stopping = true;
  }
  impl_->dispatch_cv.notify_all();
  impl_->work_cv.notify_all();
  impl_->dispatcher.join();
  for (auto& worker : impl_->workers) worker.join();
  impl_->workers.clear();
  // Only now: the steps that were finishing kept their leases until their outcomes were written.
  {
    std::lock_guard lock(impl_->mutex);
    impl_->heartbeat_stopping = true;
  }
  impl_->heartbeat_cv.notify_all();
  if (impl_->heartbeat.joinable()) impl_->heartbeat.join();

  std::vector<inventory::Id> unstarted;
  for (const auto& run : impl_->queue) unstarted.push_back(run.id);
  impl_->queue.clear();
  auto released = inventory::releaseLeases(*impl_->db, impl_->options.owner, unstarted);
  if (!released) {
    spdlog::warn("workflow engine {}: cannot release {} leases: {}", impl_->options.owner,
                 unstarted.size(), released.error().message);
  }
  std::lock_guard lock(impl_->mutex);
  impl_->liveness.reset();  // after the leases are written or released
  impl_->running = false;
  impl_->stopping = false;
}

}  // namespace workflows
