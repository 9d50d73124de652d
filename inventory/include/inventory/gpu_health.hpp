// GPU health history in PostgreSQL (docs/health.md): partitions, ingest of one node's batch,
// incremental roll-ups, retention by dropping partitions, and the reads behind the health API.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/database.hpp"
#include "inventory/health/retention.hpp"
#include "inventory/health/rollup_math.hpp"
#include "inventory/health/sample.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct HealthSettings {
  health::RetentionSettings retention;
  health::IngestLimits limits;
};

// Creates the missing raw, hourly and daily partitions that [first, last] touches; returns the
// names it created.
common::Result<std::vector<std::string>> ensureHealthPartitions(Database& db, health::Days first,
                                                                health::Days last);

struct HealthIngestResult {
  int samples = 0;     // readings stored
  int duplicates = 0;  // readings already stored (a retried batch), skipped
  int events = 0;      // health events written (XID bursts opened included)
  int resets = 0;      // GPUs whose counters restarted (driver reload)
};

// One node's batch in one transaction: the readings, each GPU's counter state (locked, so each
// increment is counted once), XID bursts and events, and the roll-up marks. Refused whole
// (nothing stored): invalid input (invalid_argument naming the field), an unknown node
// (not_found), a reading older than one already stored for that GPU (conflict "stale_sample").
// Partitions for the batch's day are created when missing. `now` is the service's clock.
common::Result<HealthIngestResult> ingestHealthBatch(Database& db, Id node_id,
                                                     const health::NodeBatch& batch,
                                                     health::Seconds now,
                                                     const HealthSettings& settings = {});

struct HealthRollupRun {
  int hourly_buckets = 0;  // (hour, node) pairs recomputed from raw samples
  int daily_buckets = 0;   // (day, node) pairs recomputed from hourly roll-ups
};

// Recomputes every marked bucket that has ended by `now` from the level below, then clears its
// mark: hours from raw samples, then days from hours. Idempotent; safe to run on any replica at
// any time (a second run finds nothing marked).
common::Result<HealthRollupRun> rollUpHealth(Database& db, health::Seconds now);

// Drops the partitions of each level whose whole range is older than its retention (as of
// `today`); returns the names dropped. Never deletes rows.
common::Result<std::vector<std::string>> applyHealthRetention(
    Database& db, health::Days today, const health::RetentionSettings& retention);

// Compaction (docs/health.md, "Storage"): each raw day partition that ended at least
// `retention.compact_after_days` days before `today` has its readings moved into
// gpu_health_compact (one row of arrays per GPU, hour and node; merged into a row already there)
// and is dropped, one day per transaction: killed anywhere, a day is raw or compact, never half.
// Reads (history, roll-ups) see both through the gpu_health_readings view, so nothing a reader
// gets changes. Returns the raw partitions compacted and how many readings moved.
struct HealthCompaction {
  std::vector<std::string> compacted;
  long long readings = 0;
};
common::Result<HealthCompaction> compactHealthHistory(Database& db, health::Days today,
                                                      const health::RetentionSettings& retention);

struct HealthMaintenanceRun {
  std::vector<std::string> created;  // partitions made ahead
  HealthRollupRun rollup;
  std::vector<std::string> dropped;  // partitions past retention
  HealthCompaction compaction;
};

// What a periodic job runs (every few minutes, on any replica): partitions for today and the
// next `days_ahead` days, the due roll-ups, retention, then compaction of what retention kept.
common::Result<HealthMaintenanceRun> maintainHealthHistory(
    Database& db, health::Seconds now, const health::RetentionSettings& retention,
    int days_ahead = 2);

// One point of a GPU's history: a raw reading (samples == 1) or an hourly / daily roll-up.
struct HealthPoint {
  std::string at;  // the reading's time or the bucket's start (ISO-8601 UTC)
  Id node_id = 0;
  long long samples = 0;
  health::Stat temperature_c;
  health::Stat power_w;
  health::Stat sm_clock_mhz;
  long long throttled_samples = 0;
  long long clock_event_reasons = 0;
  long long ecc_corrected = 0;  // new errors in the point (reset-corrected)
  long long ecc_uncorrected = 0;
  long long xids = 0;
  int worst_class = 0;  // health::HealthClass
  std::string source;   // a raw reading's: "agent", or "bmc" (the out-of-band sweep); roll-ups: ""
  // What the resident monitor reads besides, at every level.
  health::Stat hbm_temperature_c;
  health::Stat mem_clock_mhz;
  health::Stat gpu_utilization_pct;
  long long pcie_replays = 0;  // new replays in the point (reset-corrected)
  // A raw reading's PCIe replay count as the driver gave it (roll-ups: none).
  std::optional<std::int64_t> pcie_replay_errors;
};

struct GpuHealthEvent {
  Id id = 0;
  std::string kind;
  std::string at;
  std::optional<Id> node_id;
  std::string detail_json;
};

struct XidBurstRecord {
  Id id = 0;
  int xid = 0;
  Id node_id = 0;
  std::string first_at;
  std::string last_at;
  long long count = 0;
};

struct GpuCounterTotals {
  std::optional<Id> node_id;  // where its last reading came from
  std::string last_sample;
  std::string driver_epoch;
  int resets = 0;
  std::map<std::string, long long> lifetime;  // per counter name
  std::map<std::string, long long> last_raw;
};

struct GpuHealthHistory {
  std::string serial;
  health::Resolution resolution = health::Resolution::kRaw;
  std::vector<HealthPoint> points;
  std::vector<GpuHealthEvent> events;
  std::vector<XidBurstRecord> xid_bursts;
  std::vector<BurnInResultRecord> burn_ins;  // all of them, newest first
  std::optional<GpuCounterTotals> counters;
};

// [from, to) at `resolution` (the caller chose it, see health::chooseResolution). not_found when
// the serial has no health readings, events or burn-in results at all.
common::Result<GpuHealthHistory> gpuHealthHistory(Database& db, const std::string& serial,
                                                  health::Seconds from, health::Seconds to,
                                                  health::Resolution resolution);

enum class HealthGroupBy { kNode, kRack, kRow, kSite };

struct HealthGroupRollup {
  std::string site;  // empty for nodes not in a rack
  std::string row;   // racks with no row: empty
  std::string rack;
  std::optional<Id> node_id;  // by node only
  long long gpus = 0;
  long long samples = 0;
  health::Stat temperature_c;
  health::Stat power_w;
  health::Stat sm_clock_mhz;
  long long throttled_samples = 0;
  long long ecc_corrected = 0;
  long long ecc_uncorrected = 0;
  long long xids = 0;
  // GPUs by their worst class over the range.
  long long healthy_gpus = 0;
  long long warning_gpus = 0;
  long long critical_gpus = 0;
  health::Stat hbm_temperature_c;
  health::Stat gpu_utilization_pct;
  long long pcie_replays = 0;  // new replays (reset-corrected)
};

// Readings taken in [from, to) at `resolution`, grouped by where they were taken.
common::Result<std::vector<HealthGroupRollup>> healthRollups(Database& db, HealthGroupBy by,
                                                             health::Seconds from,
                                                             health::Seconds to,
                                                             health::Resolution resolution);

}  // namespace inventory
