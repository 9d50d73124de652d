// runMonitor: sample every GPU, queue the batch on disk, send what is queued oldest first, rotate
// the credential when the service asks. Whatever fails, the loop goes on: a node in service must
// never lose its monitor to a transient error.
#include <ostream>
#include <thread>

#include "agent/monitor.hpp"

namespace agent {
namespace {

class Monitor {
 public:
  Monitor(const MonitorOptions& options, GpuBackend& backend, ServiceClient& client,
          std::ostream& log, Spool spool)
      : options_(options), backend_(backend), client_(client), log_(log), spool_(std::move(spool)) {
    epoch_ = options_.driver_epoch.empty() ? backend_.driverVersion() : options_.driver_epoch;
  }

  MonitorTotals run() {
    std::chrono::system_clock::time_point next;
    for (int i = 0; options_.intervals == 0 || i < options_.intervals; ++i) {
      if (i > 0) waitUntil(next);
      if (options_.keep_going && !options_.keep_going()) break;
      next = now() + options_.interval;
      interval();
    }
    return totals_;
  }

 private:
  std::chrono::system_clock::time_point now() const {
    return options_.now ? options_.now() : std::chrono::system_clock::now();
  }

  // An interval that took longer than the interval starts the next one at once.
  void waitUntil(std::chrono::system_clock::time_point next) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now());
    if (wait <= std::chrono::milliseconds::zero()) return;
    if (options_.sleeper) {
      options_.sleeper(wait);
    } else {
      std::this_thread::sleep_for(wait);
    }
  }

  // Tasks wait until the queue is sent: a reading sampled before a reset must reach the service
  // before the reset's outcome does, or it would look like the reset did not take.
  void interval() {
    sample();
    loadCredential();
    if (credential_.empty()) return;
    tasks_.clear();
    drain();
    if (spool_.size() == 0 && !credential_refused_) carryOut(tasks_);
  }

  // The GPUs are discovered until it works once; a GPU that fails to read is left out of this
  // batch (its silence is itself a signal the service sees).
  void sample() {
    if (gpus_.empty()) {
      auto found = backend_.discover();
      if (!found || found->empty()) {
        log_ << "provisioner-agent monitor: no GPUs to read"
             << (found ? "" : ": " + found.error().message) << "\n";
        return;
      }
      gpus_ = std::move(found).value();
    }
    std::vector<GpuReading> readings;
    for (const GpuFacts& gpu : gpus_) {
      auto sample = backend_.sampleHealth(gpu.index);
      if (!sample) {
        log_ << "provisioner-agent monitor: GPU " << gpu.serial << ": " << sample.error().message
             << "\n";
        continue;
      }
      readings.push_back({gpu.serial, std::move(sample).value()});
    }
    if (readings.empty()) return;
    const std::string batch = healthBatchJson(formatUtcSeconds(now()), epoch_, readings).dump();
    auto queued = spool_.append(batch);
    if (!queued) {
      log_ << "provisioner-agent monitor: cannot queue the batch: " << queued.error().message
           << "\n";
      return;
    }
    ++totals_.sampled;
    if (*queued > 0) {
      log_ << "provisioner-agent monitor: queue full: dropped the " << *queued
           << " oldest batch(es) (" << spool_.dropped() << " ever)\n";
    }
  }

  // Read every interval while there is none or it was refused: a re-enrolment writes a new one.
  void loadCredential() {
    if (!credential_.empty() && !credential_refused_) return;
    auto read = readCredential(options_.state_dir);
    if (!read) {
      if (!warned_missing_) log_ << "provisioner-agent monitor: " << read.error().message << "\n";
      warned_missing_ = true;
      return;
    }
    if (*read != credential_) credential_refused_ = false;
    credential_ = std::move(read).value();
  }

  void drain() {
    if (credential_refused_) return;
    for (int n = 0; n < options_.max_sends_per_interval; ++n) {
      auto next = spool_.oldest();
      if (!next) {
        log_ << "provisioner-agent monitor: " << next.error().message << "\n";
        return;
      }
      if (!*next) return;
      auto sent = client_.postHealth((*next)->text, credential_, 1);
      switch (classifySend(sent)) {
        case SendOutcome::kTaken:
          ++totals_.sent;
          if (!removeSent((*next)->seq)) return;
          if (sent->rotate_credential) rotate();
          tasks_ = sent->tasks;  // the latest answer's list is the service's current one
          break;
        case SendOutcome::kRefused:
          ++totals_.refused;
          log_ << "provisioner-agent monitor: batch dropped, the service refuses it: "
               << sent.error().message << "\n";
          if (!removeSent((*next)->seq)) return;
          break;
        case SendOutcome::kCredentialRefused:
          credential_refused_ = true;
          log_ << "provisioner-agent monitor: the credential is refused (" << sent.error().code
               << "); batches stay queued\n";
          return;
        case SendOutcome::kRetryLater:
          log_ << "provisioner-agent monitor: " << spool_.size()
               << " batch(es) queued, the service is not taking them now: " << sent.error().message
               << "\n";
          return;
      }
    }
  }

  // Each task once per interval; the service lists a task until it has its outcome, and the
  // journal makes a listed task that was carried out only report again.
  void carryOut(const std::vector<ResidentTaskOrder>& tasks) {
    for (const auto& order : tasks) {
      const ResidentTaskOutcome outcome =
          carryOutResidentTask(options_.state_dir, order, gpus_, backend_, now());
      log_ << "provisioner-agent monitor: resident task " << order.id << " (" << order.kind << " "
           << order.gpu_serial << "): " << (outcome.succeeded ? "succeeded" : "failed") << ": "
           << outcome.message << "\n";
      auto reported = client_.reportResidentTask(order.id, outcome.succeeded, outcome.message,
                                                 outcome.done_at, credential_, outcome.details);
      // Refused for good (the task was cancelled or is unknown): forget it; otherwise keep it.
      if (!reported && classifyFailure(reported.error()) != SendOutcome::kRefused) {
        log_ << "provisioner-agent monitor: the outcome of resident task " << order.id
             << " is reported again later: " << reported.error().message << "\n";
        continue;
      }
      if (reported) ++totals_.tasks;
      forgetResidentTask(options_.state_dir, order.id);
    }
  }

  bool removeSent(std::uint64_t seq) {
    auto removed = spool_.remove(seq);
    if (!removed) log_ << "provisioner-agent monitor: " << removed.error().message << "\n";
    return static_cast<bool>(removed);
  }

  // The successor is on disk before it is used: its first use revokes the old one.
  void rotate() {
    auto successor = client_.rotateCredential(credential_);
    if (!successor) {
      log_ << "provisioner-agent monitor: credential rotation failed, retried when asked again: "
           << successor.error().message << "\n";
      return;
    }
    auto stored = writeCredential(options_.state_dir, *successor);
    if (!stored) {
      log_ << "provisioner-agent monitor: cannot store the new credential: "
           << stored.error().message << "\n";
      return;
    }
    credential_ = std::move(successor).value();
    ++totals_.rotations;
    log_ << "provisioner-agent monitor: credential rotated\n";
  }

  const MonitorOptions& options_;
  GpuBackend& backend_;
  ServiceClient& client_;
  std::ostream& log_;
  Spool spool_;
  std::string epoch_;
  std::vector<GpuFacts> gpus_;
  std::string credential_;
  bool credential_refused_ = false;
  bool warned_missing_ = false;
  MonitorTotals totals_;
  std::vector<ResidentTaskOrder> tasks_;  // handed over by this interval's answers
};

}  // namespace

common::Result<MonitorTotals> runMonitor(const MonitorOptions& options, GpuBackend& backend,
                                         ServiceClient& client, std::ostream& log) {
  PROV_ASSIGN(auto spool, Spool::open(options.state_dir / "spool", options.spool_max_batches));
  Monitor monitor(options, backend, client, log, std::move(spool));
  return monitor.run();
}

}  // namespace agent
