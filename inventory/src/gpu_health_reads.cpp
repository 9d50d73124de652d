// Reads behind the health API: one GPU's history at a resolution, and roll-ups by place.
#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "inventory/gpu_health.hpp"
#include "queries_gpu_health.hpp"

namespace inventory {
namespace {

using detail::Tx;
using health::Resolution;

double num(const pqxx::field& f) {
  return f.is_null() ? 0.0 : f.as<double>();
}
long long whole(const pqxx::field& f) {
  return f.is_null() ? 0 : f.as<long long>();
}

// From (count, sum, min, max) columns starting at `i`.
health::Stat statAt(const pqxx::row& row, int i) {
  health::Stat s;
  s.count = whole(row[i]);
  if (s.count == 0) return s;
  s.sum = num(row[i + 1]);
  s.min = num(row[i + 2]);
  s.max = num(row[i + 3]);
  return s;
}

HealthPoint pointFromRow(const pqxx::row& row) {
  HealthPoint p;
  p.at = row[0].c_str();
  p.node_id = detail::id(row[1]);
  p.samples = whole(row[2]);
  p.temperature_c = statAt(row, 3);
  p.power_w = statAt(row, 7);
  p.sm_clock_mhz = statAt(row, 11);
  p.throttled_samples = whole(row[15]);
  p.clock_event_reasons = whole(row[16]);
  p.ecc_corrected = whole(row[17]);
  p.ecc_uncorrected = whole(row[18]);
  p.xids = whole(row[19]);
  p.worst_class = static_cast<int>(whole(row[20]));
  p.source = detail::text(row[21]);
  p.hbm_temperature_c = statAt(row, 22);
  p.mem_clock_mhz = statAt(row, 26);
  p.gpu_utilization_pct = statAt(row, 30);
  p.pcie_replays = whole(row[34]);
  if (!row[35].is_null()) p.pcie_replay_errors = whole(row[35]);
  return p;
}

// Buckets are read from the one holding `from`: a range starting mid-hour shows that hour.
health::Seconds bucketStart(Resolution r, health::Seconds t) {
  if (r == Resolution::kHourly) return health::hourOf(t);
  if (r == Resolution::kDaily) return health::Seconds{health::dayOf(t)};
  return t;
}

const detail::Query& pointQuery(Resolution r) {
  if (r == Resolution::kHourly) return detail::kHourlyPoints;
  if (r == Resolution::kDaily) return detail::kDailyPoints;
  return detail::kRawPoints;
}

// The group roll-ups of the bucket levels (raw ranges: kRawGroupRollups, with its whole hours).
const detail::Query& bucketGroupQuery(Resolution r) {
  return r == Resolution::kDaily ? detail::kDailyGroupRollups : detail::kHourlyGroupRollups;
}

void readPoints(Tx& tx, GpuHealthHistory& h, const std::string& from, const std::string& to) {
  for (const auto& row : tx.exec(pointQuery(h.resolution), h.serial, from, to)) {
    h.points.push_back(pointFromRow(row));
  }
}

void readEvents(Tx& tx, GpuHealthHistory& h, const std::string& from, const std::string& to) {
  for (const auto& row : tx.exec(detail::kGpuHealthEvents, h.serial, from, to)) {
    h.events.push_back({detail::id(row[0]), row[1].c_str(), row[2].c_str(), detail::optId(row[3]),
                        row[4].c_str()});
  }
  for (const auto& row : tx.exec(detail::kGpuXidBursts, h.serial, from, to)) {
    h.xid_bursts.push_back({detail::id(row[0]), row[1].as<int>(), detail::id(row[2]),
                            row[3].c_str(), row[4].c_str(), row[5].as<long long>()});
  }
}

void readCounters(Tx& tx, GpuHealthHistory& h) {
  auto rows = tx.exec(detail::kGpuCounterTotals, h.serial);
  if (rows.empty()) return;
  const auto& row = rows[0];
  GpuCounterTotals t;
  t.node_id = detail::optId(row[0]);
  t.last_sample = detail::text(row[1]);
  t.driver_epoch = row[2].c_str();
  t.resets = row[3].as<int>();
  t.lifetime = detail::counterMap(row[4].c_str());
  t.last_raw = detail::counterMap(row[5].c_str());
  h.counters = std::move(t);
}

const char* groupName(HealthGroupBy by) {
  switch (by) {
    case HealthGroupBy::kNode:
      return "node";
    case HealthGroupBy::kRack:
      return "rack";
    case HealthGroupBy::kRow:
      return "row";
    case HealthGroupBy::kSite:
      return "site";
  }
  return "site";
}

HealthGroupRollup groupFromRow(const pqxx::row& row) {
  HealthGroupRollup g;
  g.site = row[0].c_str();
  g.row = row[1].c_str();
  g.rack = row[2].c_str();
  g.node_id = detail::optId(row[3]);
  g.gpus = whole(row[4]);
  g.samples = whole(row[5]);
  g.temperature_c = statAt(row, 6);
  g.power_w = statAt(row, 10);
  g.sm_clock_mhz = statAt(row, 14);
  g.throttled_samples = whole(row[18]);
  g.ecc_corrected = whole(row[19]);
  g.ecc_uncorrected = whole(row[20]);
  g.xids = whole(row[21]);
  g.healthy_gpus = whole(row[22]);
  g.warning_gpus = whole(row[23]);
  g.critical_gpus = whole(row[24]);
  g.hbm_temperature_c = statAt(row, 25);
  g.gpu_utilization_pct = statAt(row, 29);
  g.pcie_replays = whole(row[33]);
  return g;
}

}  // namespace

common::Result<GpuHealthHistory> gpuHealthHistory(Database& db, const std::string& serial,
                                                  health::Seconds from, health::Seconds to,
                                                  Resolution resolution) {
  auto burn_ins = gpuBurnInHistory(db, serial);
  if (!burn_ins && burn_ins.error().kind != common::ErrorKind::kNotFound) {
    return common::fail(std::move(burn_ins).error());
  }
  GpuHealthHistory h;
  h.serial = serial;
  h.resolution = resolution;
  if (burn_ins) h.burn_ins = std::move(*burn_ins);
  PROV_TRY(detail::withRead(db, "gpu_health_history", [&](Tx& tx) -> common::Result<void> {
    const bool known = tx.exec(detail::kGpuHasHealth, serial)[0][0].as<bool>();
    if (!known && h.burn_ins.empty()) {
      return common::notFound("gpu_not_found", "no health history for GPU " + serial);
    }
    readPoints(tx, h, detail::sqlTime(bucketStart(resolution, from)), detail::sqlTime(to));
    readEvents(tx, h, detail::sqlTime(from), detail::sqlTime(to));
    readCounters(tx, h);
    return common::success();
  }));
  return h;
}

common::Result<std::vector<HealthGroupRollup>> healthRollups(Database& db, HealthGroupBy by,
                                                             health::Seconds from,
                                                             health::Seconds to,
                                                             Resolution resolution) {
  return detail::withRead(
      db, "health_rollups", [&](Tx& tx) -> common::Result<std::vector<HealthGroupRollup>> {
        std::vector<HealthGroupRollup> out;
        const std::string start = detail::sqlTime(bucketStart(resolution, from));
        const std::string end = detail::sqlTime(to);
        if (resolution == Resolution::kRaw) {
          const auto whole = health::wholeHours(from, to);
          for (const auto& row :
               tx.exec(detail::kRawGroupRollups, start, end, groupName(by),
                       detail::sqlTime(whole.first), detail::sqlTime(whole.second))) {
            out.push_back(groupFromRow(row));
          }
          return out;
        }
        for (const auto& row : tx.exec(bucketGroupQuery(resolution), start, end, groupName(by))) {
          out.push_back(groupFromRow(row));
        }
        return out;
      });
}

}  // namespace inventory
