#include "host/host_booter.hpp"

#include <nlohmann/json.hpp>

#include "host/boot_sequence.hpp"

namespace sim {

nlohmann::json hostStatusJson(const HostStatus& status) {
  return {{"boots", status.boots},
          {"last_boot", status.lastBoot},
          {"agent", status.agent},
          {"error", status.error},
          {"script_fetches", status.scriptFetches},
          {"image_retries", status.imageRetries},
          {"log", status.log}};
}

}  // namespace sim

namespace sim::host {
namespace {

constexpr std::size_t kMaxLogLines = 200;

bool isNetworkBoot(const BootEvent& event) {
  return event.target == "Pxe" || event.target == "UefiHttp";
}

}  // namespace

HostStatus HostRecord::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::shared_ptr<BootRun> HostRecord::begin(const std::string& lastBoot) {
  auto run = std::make_shared<BootRun>();
  std::lock_guard lock(mutex_);
  if (current_) current_->supersede();  // the old OS is gone with the reset
  current_ = run;
  ++status_.boots;
  status_.lastBoot = lastBoot;
  status_.agent = "not_started";
  status_.error.clear();
  return run;
}

void HostRecord::update(const BootRun& run, const std::function<void(HostStatus&)>& change) {
  std::lock_guard lock(mutex_);
  if (current_.get() == &run) change(status_);
}

void HostRecord::log(const BootRun& run, std::string line) {
  update(run, [&line](HostStatus& status) {
    status.log.push_back(std::move(line));
    if (status.log.size() > kMaxLogLines) status.log.erase(status.log.begin());
  });
}

HostBooter::HostBooter(BootSettings settings, const SimClock& clock, MachineLookup lookup)
    : settings_(std::move(settings)), clock_(clock), lookup_(std::move(lookup)) {}

HostBooter::~HostBooter() {
  stop();
}

std::shared_ptr<HostRecord> HostBooter::record(const std::string& id) {
  auto& slot = hosts_[id];
  if (!slot) slot = std::make_shared<HostRecord>();
  return slot;
}

void HostBooter::reapFinished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      it->thread.join();  // its function has returned: this does not wait
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void HostBooter::onBoot(const BootEvent& event) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  reapFinished();
  auto host = record(event.bmcId);
  const bool network = isNetworkBoot(event);
  auto run = host->begin(network ? "network" : "disk");
  if (!network) {
    host->log(*run, "booted from the local disk (boot target " + event.target + ")");
    if (settings_.hostStateDir.empty()) return;  // an OS that runs no monitor: nothing to do
  } else {
    const bool ownUri = event.target == "UefiHttp" && !event.httpBootUri.empty();
    if (settings_.serviceUrl.empty() && !ownUri) {
      host->update(*run, [](HostStatus& s) { s.error = "no boot service configured"; });
      return;
    }
  }
  auto done = std::make_shared<std::atomic<bool>>(false);
  BootJob job{event, settings_, &clock_, lookup_, host, run};
  std::thread thread([job = std::move(job), done, network] {
    network ? runNetworkBoot(job) : runDiskBoot(job);
    done->store(true);
  });
  workers_.push_back(Worker{std::move(thread), std::move(run), std::move(done)});
}

HostStatus HostBooter::status(const std::string& id) const {
  std::shared_ptr<HostRecord> host;
  {
    std::lock_guard lock(mutex_);
    auto found = hosts_.find(id);
    if (found == hosts_.end()) return HostStatus{};
    host = found->second;
  }
  return host->status();
}

void HostBooter::stop() {
  std::vector<Worker> workers;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    workers.swap(workers_);
  }
  for (Worker& worker : workers) worker.run->stop();
  for (Worker& worker : workers) worker.thread.join();
}

}  // namespace sim::host
