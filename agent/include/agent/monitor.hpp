// provisioner-agent monitor: the resident mode on a node in service (docs/health.md, "The
// resident monitor"). Every interval one health batch for the node, one reading per GPU, queued
// on the node's disk first and sent in order, so a service restart or a replica's death loses no
// reading; sent with the node's monitor credential, rotated when the service asks.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/gpu_backend.hpp"
#include "agent/service_client.hpp"
#include "common/result.hpp"

namespace agent {

// Pure parts ---------------------------------------------------------------------------------

struct GpuReading {
  std::string serial;
  HealthSample sample;
};

// "2026-12-07T10:15:30Z": the service's timestamps, to the second.
std::string formatUtcSeconds(std::chrono::system_clock::time_point t);

// The batch the service takes (HealthBatch in docs/openapi.yaml): `driver_epoch` changes when the
// driver was reloaded, which restarts the volatile counters; XIDs are dated at `sampled_at`.
nlohmann::json healthBatchJson(const std::string& sampled_at, const std::string& driver_epoch,
                               const std::vector<GpuReading>& readings);

// The batch's driver_epoch: the driver version and the kernel's boot id (volatile counters
// restart at every driver load, and every boot loads the driver), "580.95.05@1f0e7c2a".
std::string driverEpoch(const std::string& driver_version, const std::string& boot_id);

// What a send means for the queued batch.
enum class SendOutcome {
  kTaken,              // 2xx: stored (or already stored): drop it from the queue
  kRefused,            // the service will never take this batch (400, 409 stale, 413): drop it
  kCredentialRefused,  // 401/403: keep it, send nothing more until the credential changes
  kRetryLater,         // unreachable, time-out, 429, 5xx: keep it, try at the next interval
};
SendOutcome classifySend(const common::Result<HealthAck>& sent);
// The same for a failed call of any kind (a resident task's report): never kTaken.
SendOutcome classifyFailure(const common::Error& error);

// The queue on disk ---------------------------------------------------------------------------

struct SpooledBatch {
  std::uint64_t seq = 0;
  std::string text;
};

// A bounded, ordered queue of batches: one file per batch in `dir`, written under a temporary
// name, synced and renamed, so a crash leaves whole batches or none. Full, it drops the oldest
// (the last resort; counted, and the count survives restarts).
class Spool {
 public:
  static common::Result<Spool> open(std::filesystem::path dir, std::size_t max_batches);

  // Returns how many old batches were dropped to make room (0 normally).
  common::Result<std::size_t> append(const std::string& batch_json);
  common::Result<std::optional<SpooledBatch>> oldest() const;
  common::Result<void> remove(std::uint64_t seq);
  std::size_t size() const { return seqs_.size(); }
  std::uint64_t dropped() const { return dropped_; }

 private:
  Spool(std::filesystem::path dir, std::size_t max_batches)
      : dir_(std::move(dir)), max_batches_(max_batches) {}
  std::filesystem::path pathOf(std::uint64_t seq) const;

  std::filesystem::path dir_;
  std::size_t max_batches_;
  std::vector<std::uint64_t> seqs_;  // ascending
  std::uint64_t next_seq_ = 1;
  std::uint64_t dropped_ = 0;
};

// The monitor credential on disk: `<state_dir>/credential`, mode 0600, replaced atomically.
// NotFound "credential_missing" when the node was never enrolled.
common::Result<std::string> readCredential(const std::filesystem::path& state_dir);
common::Result<void> writeCredential(const std::filesystem::path& state_dir,
                                     const std::string& secret);

// Where the monitor reports (`<state_dir>/service.json`), written by the burn-in that enrolled,
// so a node booted from its disk, whose kernel command line names no service, still knows.
struct MonitorEndpoint {
  std::string service_url;
  std::string node_id;
};
common::Result<void> writeMonitorEndpoint(const std::filesystem::path& state_dir,
                                          const MonitorEndpoint& endpoint);
// The file writeMonitorEndpoint writes (its time says when the node last enrolled).
std::filesystem::path monitorEndpointPath(const std::filesystem::path& state_dir);
// NotFound "endpoint_missing"; InvalidArgument "invalid_endpoint_file" when it does not parse.
common::Result<MonitorEndpoint> readMonitorEndpoint(const std::filesystem::path& state_dir);

// The burn-in's half: enrolls with the session token and stores the credential and the endpoint.
common::Result<void> enrollForMonitor(ServiceClient& client, const std::filesystem::path& state_dir,
                                      const MonitorEndpoint& endpoint);

// Resident tasks -----------------------------------------------------------------------------

struct ResidentTaskOutcome {
  bool succeeded = false;
  std::string message;  // what the service records on the task and the flag's run
  std::string done_at;  // when it finished, on this node's clock (formatUtcSeconds)
  nlohmann::json details = nlohmann::json::object();  // a burn-in's "result" and "facts"
};

// Carries out one task the service handed over: "gpu_reset" (reset the GPU, then read it again: a
// row remap still pending fails the task) or "burn_in" (the order's plan on every GPU; the result
// and the GPUs' facts go in `details` for the service to judge). Journaled in
// `<state_dir>/tasks/<id>`: "started" before the reset, the outcome after. A task whose outcome is
// journaled is not carried out again (its outcome is reported again); one found "started" (the
// agent was killed mid-reset) reads the GPU first: no remap pending, the reset took; otherwise it
// is reset again (a burn-in is simply run again).
ResidentTaskOutcome carryOutResidentTask(const std::filesystem::path& state_dir,
                                         const ResidentTaskOrder& order,
                                         const std::vector<GpuFacts>& gpus, GpuBackend& backend,
                                         std::chrono::system_clock::time_point now);
// Drops the journal once the service has the outcome.
void forgetResidentTask(const std::filesystem::path& state_dir, std::int64_t id);

// The loop -----------------------------------------------------------------------------------

struct MonitorOptions {
  std::filesystem::path state_dir = "/var/lib/provisioner-agent";
  std::chrono::seconds interval{30};
  std::size_t spool_max_batches = 2880;  // a day at 30 s
  // Catching up after an outage: at most this many queued batches per interval, oldest first.
  int max_sends_per_interval = 20;
  std::string driver_epoch;  // empty: the backend's driver version (main passes driverEpoch())
  int intervals = 0;         // how many to run; 0: until killed
  std::function<std::chrono::system_clock::time_point()> now;  // empty: the system clock
  Sleeper sleeper;                                             // empty: really sleep
  // Asked before each interval; false ends the loop (empty: go on). A simulated host's operating
  // system ends with its boot.
  std::function<bool()> keep_going;
};

struct MonitorTotals {
  int sampled = 0;  // batches queued
  int sent = 0;     // batches the service took
  int refused = 0;  // batches the service will never take (dropped)
  int rotations = 0;
  int tasks = 0;  // resident task outcomes the service took
};

// Runs `options.intervals` intervals (or forever); the totals of the run. An error only when the
// queue cannot be opened (the state folder is unusable). Never writes a credential to `log`.
common::Result<MonitorTotals> runMonitor(const MonitorOptions& options, GpuBackend& backend,
                                         ServiceClient& client, std::ostream& log);

}  // namespace agent
