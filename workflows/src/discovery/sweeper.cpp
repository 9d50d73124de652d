// Subnet sweeps: every address of a CIDR asked for its Redfish service root, at most
// max_in_flight at once through the libcurl transport. Callbacks only count and queue; the
// sweep's own thread writes discoveries, starts lifecycles and records progress.
#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "probe.hpp"
#include "redfish/transport.hpp"
#include "workflows/discovery.hpp"

namespace workflows {
namespace {

constexpr int kProgressEvery = 50;

// What the probes in flight report back to the sweep thread.
struct ProbeState {
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t in_flight = 0;
  int probed = 0;
  std::vector<std::string> answered;  // addresses that answered as Redfish, not yet recorded
};

}  // namespace

struct Sweeper::Impl {
  inventory::DatabasePtr db;
  std::shared_ptr<Engine> engine;
  SweepOptions options;
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::condition_variable idle;
  int running = 0;
  std::vector<std::thread> threads;

  void run(inventory::Sweep sweep, std::vector<std::string> addresses);
  void probeAll(const inventory::Sweep& sweep, const std::vector<std::string>& addresses,
                ProbeState& state, int& found);
  int recordAnswered(const inventory::Sweep& sweep, std::vector<std::string> answered);
  void finished();
};

void Sweeper::Impl::run(inventory::Sweep sweep, std::vector<std::string> addresses) {
  ProbeState state;
  int found = 0;
  probeAll(sweep, addresses, state, found);
  const bool stopped = stopping.load();
  auto done = inventory::finishSweep(*db, sweep.id, stopped ? "failed" : "done",
                                     stopped ? "the service stopped during the sweep" : "");
  if (!done) spdlog::warn("sweep {}: {}", sweep.id, done.error().message);
  spdlog::info("sweep {} of {}: {} of {} probed, {} found", sweep.id, sweep.cidr, state.probed,
               addresses.size(), found);
  finished();
}

void Sweeper::Impl::probeAll(const inventory::Sweep& sweep,
                             const std::vector<std::string>& addresses, ProbeState& state,
                             int& found) {
  redfish::TransportOptions transport_options;
  transport_options.maxInFlightPerBmc = 1;
  transport_options.maxInFlightTotal = options.max_in_flight;
  transport_options.requestTimeout = options.probe_timeout;
  transport_options.connectTimeout = options.probe_timeout;
  transport_options.maxAttempts = 1;  // a silent address is the common case: no retries
  redfish::Transport transport(transport_options);
  const std::size_t limit = options.max_in_flight == 0 ? 1 : options.max_in_flight;
  int reported = 0;
  // Records what answered and, every kProgressEvery probes, the progress. Called and returns
  // with the lock held; releases it around the database work.
  auto drain = [&](std::unique_lock<std::mutex>& lock) {
    const bool progress = state.probed - reported >= kProgressEvery;
    if (state.answered.empty() && !progress) return;
    auto answered = std::move(state.answered);
    state.answered.clear();
    const int probed = state.probed;
    lock.unlock();
    found += recordAnswered(sweep, std::move(answered));
    if (progress) {
      reported = probed;
      (void)inventory::updateSweepProgress(*db, sweep.id, probed, found);
    }
    lock.lock();
  };
  std::unique_lock lock(state.mutex);
  for (const auto& address : addresses) {
    for (;;) {
      drain(lock);
      if (stopping.load() || state.in_flight < limit) break;
      state.changed.wait(lock);
    }
    if (stopping.load()) break;
    ++state.in_flight;
    lock.unlock();
    probeAddress(transport, sweep.scheme, address, sweep.port, [&state, address](bool redfish) {
      std::lock_guard guard(state.mutex);
      --state.in_flight;
      ++state.probed;
      if (redfish) state.answered.push_back(address);
      state.changed.notify_all();
    });
    lock.lock();
  }
  // Probes end by their time-out at the latest, so this wait is bounded.
  while (state.in_flight > 0) state.changed.wait(lock);
  reported = -kProgressEvery;  // the last drain writes the final figures too
  drain(lock);
  lock.unlock();
  transport.shutdown();
}

int Sweeper::Impl::recordAnswered(const inventory::Sweep& sweep,
                                  std::vector<std::string> answered) {
  int recorded = 0;
  for (const auto& address : answered) {
    inventory::DiscoveryReport report;
    report.bmc_address = address;
    report.source = "sweep";
    report.site = sweep.site;
    report.rack = sweep.rack;
    auto seen = inventory::recordDiscovery(*db, report);
    if (!seen) {
      spdlog::warn("sweep {}: recording {}: {}", sweep.id, address, seen.error().message);
      continue;
    }
    ++recorded;
    if (!engine) continue;
    auto run = startLifecycleFor(*engine, *db, seen->discovery, "sweep:" + std::to_string(sweep.id),
                                 bmcBaseUrl(sweep.scheme, address, sweep.port));
    if (!run) spdlog::warn("sweep {}: starting {}: {}", sweep.id, address, run.error().message);
  }
  return recorded;
}

void Sweeper::Impl::finished() {
  std::lock_guard lock(mutex);
  --running;
  idle.notify_all();
}

Sweeper::Sweeper(inventory::DatabasePtr db, std::shared_ptr<Engine> engine, SweepOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->db = std::move(db);
  impl_->engine = std::move(engine);
  impl_->options = options;
}

Sweeper::~Sweeper() {
  stop();
}

common::Result<inventory::Sweep> Sweeper::start(const inventory::NewSweep& request,
                                                const std::vector<std::string>& addresses) {
  if (impl_->stopping.load()) {
    return common::fail(common::unavailable("sweeper_stopped", "the service is stopping"));
  }
  inventory::NewSweep row = request;
  row.addresses = static_cast<int>(addresses.size());
  PROV_ASSIGN(auto sweep, inventory::createSweep(*impl_->db, row));
  std::lock_guard lock(impl_->mutex);
  ++impl_->running;
  impl_->threads.emplace_back(
      [impl = impl_.get(), sweep, addresses] { impl->run(sweep, addresses); });
  return sweep;
}

void Sweeper::waitIdle() {
  std::unique_lock lock(impl_->mutex);
  impl_->idle.wait(lock, [&] { return impl_->running == 0; });
}

void Sweeper::stop() {
  impl_->stopping.store(true);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(impl_->mutex);
    threads.swap(impl_->threads);
  }
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace workflows
