// The out-of-band health sweep's storage (inventory/health_sweep.hpp).
#include "inventory/health_sweep.hpp"

#include <nlohmann/json.hpp>

#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "inventory/health/health_class.hpp"
#include "node_rows.hpp"
#include "queries_gpu_health.hpp"
#include "queries_health_sweep.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;
namespace h = health;

std::optional<h::Seconds> secondsOf(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return h::Seconds(std::chrono::seconds(f.as<long long>()));
}

// A BMC reading advances no counter (docs/health.md, "The out-of-band sweep").
nlohmann::json bmcSampleRow(Id node_id, const std::string& at, const h::GpuSample& g) {
  return detail::sampleRow(node_id, at, g, h::classify(g, h::CounterAdvance{}), {});
}

common::Result<BmcHealthRecord> recordLocked(Tx& tx, Id node_id, const h::NodeBatch& batch,
                                             h::Seconds now) {
  if (tx.exec(detail::kHealthSweepNodeExists, node_id).empty()) {
    return common::fail(detail::nodeNotFound(node_id));
  }
  const std::string at = detail::sqlTime(batch.sampled_at);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& g : batch.gpus) rows.push_back(bmcSampleRow(node_id, at, g));
  BmcHealthRecord out;
  if (!batch.gpus.empty()) {
    out.samples = tx.exec(detail::kInsertBmcHealthSamples, rows.dump())[0][0].as<int>();
    out.duplicates = static_cast<int>(batch.gpus.size()) - out.samples;
  }
  tx.exec(detail::kRecordHealthSweep, node_id, detail::sqlTime(now), true,
          static_cast<int>(batch.gpus.size()), std::optional<std::string>());
  if (out.samples > 0) {
    // Last: the mark's row lock is held until commit (see kMarkRollupDue).
    tx.exec(detail::kMarkRollupDue, "hourly",
            detail::textArray({detail::sqlTime(h::hourOf(batch.sampled_at))}),
            detail::textArray({std::to_string(node_id)}));
  }
  return out;
}

}  // namespace

common::Result<std::vector<HealthSweepNode>> listHealthSweepNodes(
    Database& db, const std::vector<std::string>& states) {
  return detail::withRead(
      db, "list_health_sweep_nodes", [&](Tx& tx) -> common::Result<std::vector<HealthSweepNode>> {
        std::vector<HealthSweepNode> out;
        for (const auto& row : tx.exec(detail::kListHealthSweepNodes, detail::textArray(states))) {
          out.push_back({detail::id(row[0]), detail::text(row[1]), secondsOf(row[2]),
                         secondsOf(row[3]), secondsOf(row[4]), row[5].as<bool>()});
        }
        return out;
      });
}

common::Result<std::vector<PlacedGpuReading>> listPlacedGpuReadings(
    Database& db, const std::vector<std::string>& states) {
  return detail::withRead(
      db, "list_placed_gpu_readings", [&](Tx& tx) -> common::Result<std::vector<PlacedGpuReading>> {
        std::vector<PlacedGpuReading> out;
        for (const auto& row : tx.exec(detail::kListPlacedGpuReadings, detail::textArray(states))) {
          out.push_back({detail::id(row[0]), detail::text(row[1]), secondsOf(row[2])});
        }
        return out;
      });
}

common::Result<std::vector<HealthSweepRecord>> listHealthSweeps(Database& db,
                                                                const HealthSweepFilter& filter) {
  return detail::withRead(
      db, "list_health_sweeps", [&](Tx& tx) -> common::Result<std::vector<HealthSweepRecord>> {
        std::vector<HealthSweepRecord> out;
        for (const auto& row : tx.exec(detail::kListHealthSweeps, filter.page.after,
                                       filter.reachable, filter.page.limit)) {
          out.push_back({detail::id(row[0]), detail::text(row[1]), detail::text(row[2]),
                         detail::text(row[3]), row[4].as<bool>(), detail::integer(row[5]),
                         detail::text(row[6]), detail::text(row[7])});
        }
        return out;
      });
}

common::Result<BmcHealthRecord> recordBmcHealth(Database& db, Id node_id, const h::NodeBatch& batch,
                                                h::Seconds now, const HealthSettings& settings) {
  PROV_TRY(h::validateBatch(batch, now, settings.limits, settings.retention));
  const h::Days day = h::dayOf(batch.sampled_at);
  PROV_TRY(ensureHealthPartitions(db, day, day));
  return detail::withTransaction(db, "record_bmc_health",
                                 [&](Tx& tx) -> common::Result<BmcHealthRecord> {
                                   return recordLocked(tx, node_id, batch, now);
                                 });
}

common::Result<void> markHealthSweepUnreachable(Database& db, Id node_id, h::Seconds now,
                                                const std::string& error) {
  return detail::withTransaction(
      db, "mark_health_sweep_unreachable", [&](Tx& tx) -> common::Result<void> {
        if (tx.exec(detail::kHealthSweepNodeExists, node_id).empty()) {
          return common::fail(detail::nodeNotFound(node_id));
        }
        tx.exec(detail::kRecordHealthSweep, node_id, detail::sqlTime(now), false, 0,
                std::optional<std::string>(error));
        return common::success();
      });
}

}  // namespace inventory
