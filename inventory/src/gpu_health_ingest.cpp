// One node's health batch in one transaction: readings, counter state, XID bursts, events and
// roll-up marks (see docs/health.md). The decisions are the pure rules of inventory/health/.
#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/events.hpp"
#include "inventory/health/health_class.hpp"
#include "node_rows.hpp"
#include "queries_gpu_health.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;
namespace h = health;

struct LockedGpu {
  h::CounterState state;
  h::PriorReading prior;
  std::optional<long long> last_sample;  // seconds since the epoch
};

std::string sortedSerialArray(const h::NodeBatch& batch) {
  std::vector<std::string> serials;
  for (const auto& g : batch.gpus) serials.push_back(g.serial);
  std::sort(serials.begin(), serials.end());
  return detail::textArray(serials);
}

LockedGpu lockedFromRow(const pqxx::row& row) {
  LockedGpu g;
  g.prior.known = !row[2].is_null();
  g.prior.node_id = row[1].as<long long>();
  if (g.prior.known) g.last_sample = row[2].as<long long>();
  g.state.driver_epoch = row[3].c_str();
  g.prior.driver_epoch = g.state.driver_epoch;
  g.state.last_raw = detail::countersFromJson(row[4].c_str());
  const auto lifetime = detail::countersFromJson(row[5].c_str());
  for (std::size_t i = 0; i < h::kCounterCount; ++i) g.state.lifetime[i] = lifetime[i].value_or(0);
  g.state.resets = row[6].as<long long>();
  g.prior.remap_pending = row[7].as<bool>();
  g.prior.remap_failure = row[8].as<bool>();
  return g;
}

// Locks every GPU of the batch (placeholders for first readings), in serial order.
std::map<std::string, LockedGpu> lockGpus(Tx& tx, const h::NodeBatch& batch, Id node_id) {
  const std::string serials = sortedSerialArray(batch);
  tx.exec(detail::kAddCounterStates, serials, node_id);
  std::map<std::string, LockedGpu> out;
  for (const auto& row : tx.exec(detail::kLockCounterStates, serials)) {
    out[row[0].c_str()] = lockedFromRow(row);
  }
  return out;
}

// The rows of one batch, written with one statement per table (queries_gpu_health.hpp).
struct BatchRows {
  nlohmann::json samples = nlohmann::json::array();
  nlohmann::json states = nlohmann::json::array();
  nlohmann::json events = nlohmann::json::array();

  void event(const std::string& serial, const std::string& kind, const std::string& at, Id node_id,
             const std::string& detail_json) {
    auto detail = nlohmann::json::parse(detail_json, nullptr, false);
    events.push_back({{"ord", events.size()},
                      {"gpu_serial", serial},
                      {"kind", kind},
                      {"at", at},
                      {"node_id", node_id},
                      {"detail", detail.is_object() ? detail : nlohmann::json::object()}});
  }
};

nlohmann::json stateRow(Id node_id, const std::string& at, const h::GpuSample& g,
                        const h::CounterState& s) {
  return {{"gpu_serial", g.serial},
          {"node_id", node_id},
          {"last_sample", at},
          {"driver_epoch", s.driver_epoch},
          {"last_raw", nlohmann::json::parse(detail::countersJson(s.last_raw))},
          {"lifetime", nlohmann::json::parse(detail::countersJson(s.lifetime))},
          {"resets", s.resets},
          {"remap_pending", g.remap_pending},
          {"remap_failure", g.remap_failure}};
}

std::vector<h::XidBurst> latestBursts(Tx& tx, const std::string& serial) {
  std::vector<h::XidBurst> out;
  for (const auto& row : tx.exec(detail::kLatestXidBursts, serial)) {
    out.push_back({row[0].as<long long>(), row[1].as<int>(),
                   h::Seconds{std::chrono::seconds{row[2].as<long long>()}},
                   h::Seconds{std::chrono::seconds{row[3].as<long long>()}},
                   row[4].as<long long>()});
  }
  return out;
}

// Bursts are written at once (an opened one's id goes into its `xid_burst` event).
void storeBursts(Tx& tx, Id node_id, const h::GpuSample& g, std::chrono::seconds window,
                 BatchRows& rows) {
  if (g.xids.empty()) return;
  const auto update = h::groupXids(latestBursts(tx, g.serial), g.xids, window);
  for (const auto& b : update.extended) {
    tx.exec(detail::kExtendXidBurst, *b.id, detail::sqlTime(b.first_at), detail::sqlTime(b.last_at),
            b.count);
  }
  for (const auto& b : update.opened) {
    const std::string first = detail::sqlTime(b.first_at);
    auto id = tx.exec(detail::kOpenXidBurst, g.serial, b.xid, node_id, first,
                      detail::sqlTime(b.last_at), b.count)[0][0]
                  .as<long long>();
    rows.event(
        g.serial, "xid_burst", first, node_id,
        nlohmann::json{{"xid", b.xid}, {"burst_id", id}, {"critical", h::isCriticalXid(b.xid)}}
            .dump());
  }
}

common::Result<void> checkOrder(const LockedGpu& locked, long long at, const std::string& serial,
                                bool& duplicate) {
  duplicate = locked.last_sample && *locked.last_sample == at;
  if (locked.last_sample && *locked.last_sample > at) {
    return common::conflict("stale_sample",
                            "GPU " + serial + " already has a later reading than sampled_at",
                            "sampled_at");
  }
  return common::success();
}

void writeRows(Tx& tx, const BatchRows& rows, Id node_id, h::Seconds sampled_at) {
  tx.exec(detail::kInsertHealthSamples, rows.samples.dump());
  tx.exec(detail::kUpdateCounterStates, rows.states.dump());
  if (!rows.events.empty()) tx.exec(detail::kInsertHealthEvents, rows.events.dump());
  // Last: the mark's row lock is held until commit (see kMarkRollupDue).
  tx.exec(detail::kMarkRollupDue, "hourly",
          detail::textArray({detail::sqlTime(h::hourOf(sampled_at))}),
          detail::textArray({std::to_string(node_id)}));
}

common::Result<HealthIngestResult> ingestLocked(Tx& tx, Id node_id, const h::NodeBatch& batch,
                                                const HealthSettings& settings) {
  if (tx.exec(detail::kHealthNodeExists, node_id).empty()) {
    return common::fail(detail::nodeNotFound(node_id));
  }
  auto locked = lockGpus(tx, batch, node_id);
  const long long at_s = batch.sampled_at.time_since_epoch().count();
  const std::string at = detail::sqlTime(batch.sampled_at);
  HealthIngestResult result;
  BatchRows rows;
  for (const auto& g : batch.gpus) {
    auto& gpu = locked[g.serial];
    bool duplicate = false;
    PROV_TRY(checkOrder(gpu, at_s, g.serial, duplicate));
    if (duplicate) {
      ++result.duplicates;
      continue;
    }
    const auto advance = h::advanceCounters(gpu.state, g.counters, g.driver_epoch);
    rows.samples.push_back(detail::sampleRow(node_id, at, g, h::classify(g, advance), advance));
    rows.states.push_back(stateRow(node_id, at, g, advance.state));
    for (const auto& e : h::readingEvents(g, gpu.prior, node_id, advance)) {
      rows.event(g.serial, e.kind, at, node_id, e.detail_json);
    }
    storeBursts(tx, node_id, g, settings.limits.xid_window, rows);
    if (gpu.prior.known && advance.driver_reloaded) ++result.resets;
    ++result.samples;
  }
  result.events = static_cast<int>(rows.events.size());
  if (result.samples > 0) writeRows(tx, rows, node_id, batch.sampled_at);
  return result;
}

}  // namespace

common::Result<HealthIngestResult> ingestHealthBatch(Database& db, Id node_id,
                                                     const h::NodeBatch& batch, h::Seconds now,
                                                     const HealthSettings& settings) {
  PROV_TRY(h::validateBatch(batch, now, settings.limits, settings.retention));
  const h::Days day = h::dayOf(batch.sampled_at);
  PROV_TRY(ensureHealthPartitions(db, day, day));
  return detail::withTransaction(db, "ingest_health_batch",
                                 [&](Tx& tx) -> common::Result<HealthIngestResult> {
                                   return ingestLocked(tx, node_id, batch, settings);
                                 });
}

}  // namespace inventory
