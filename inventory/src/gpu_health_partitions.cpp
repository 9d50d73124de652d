// Health partitions: created ahead of the data, dropped by retention (whole partitions only).
#include <algorithm>

#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/health/partitions.hpp"
#include "queries_gpu_health.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;
using health::Resolution;

constexpr Resolution kLevels[] = {Resolution::kRaw, Resolution::kHourly, Resolution::kDaily};

std::string boundary(health::Days d) {
  return detail::sqlTime(health::Seconds{d});
}

}  // namespace

common::Result<std::vector<std::string>> ensureHealthPartitions(Database& db, health::Days first,
                                                                health::Days last) {
  struct Wanted {
    const char* parent;
    health::Partition partition;
  };
  std::vector<Wanted> wanted;
  std::vector<std::string> names;
  for (Resolution level : kLevels) {
    for (auto& p : health::partitionsCovering(level, first, last)) {
      names.push_back(p.name);
      wanted.push_back({health::parentTable(level), std::move(p)});
    }
  }
  // The common case, every partition there, costs one read and no lock.
  PROV_ASSIGN(auto missing,
              detail::withRead(db, "missing_health_partitions",
                               [&](Tx& tx) -> common::Result<std::vector<std::string>> {
                                 std::vector<std::string> out;
                                 for (const auto& row : tx.exec(detail::kMissingHealthPartitions,
                                                                detail::textArray(names))) {
                                   out.push_back(row[0].c_str());
                                 }
                                 return out;
                               }));
  if (missing.empty()) return missing;
  return detail::withTransaction(
      db, "ensure_health_partitions", [&](Tx& tx) -> common::Result<std::vector<std::string>> {
        std::vector<std::string> created;
        for (const auto& [parent, p] : wanted) {
          if (std::find(missing.begin(), missing.end(), p.name) == missing.end()) continue;
          auto r = tx.exec(detail::kEnsureHealthPartition, parent, p.name, boundary(p.from),
                           boundary(p.to));
          if (r[0][0].as<bool>()) created.push_back(p.name);
        }
        return created;
      });
}

common::Result<std::vector<std::string>> applyHealthRetention(
    Database& db, health::Days today, const health::RetentionSettings& retention) {
  return detail::withTransaction(
      db, "apply_health_retention", [&](Tx& tx) -> common::Result<std::vector<std::string>> {
        std::vector<std::string> dropped;
        for (Resolution level : kLevels) {
          std::vector<std::string> existing;
          for (const auto& row : tx.exec(detail::kHealthPartitions, health::parentTable(level))) {
            existing.push_back(row[0].c_str());
          }
          for (const auto& name : health::partitionsToDrop(level, existing, today, retention)) {
            if (tx.exec(detail::kDropHealthPartition, health::parentTable(level), name)[0][0]
                    .as<bool>()) {
              dropped.push_back(name);
            }
          }
        }
        std::vector<std::string> compact;
        for (const auto& row : tx.exec(detail::kHealthPartitions, health::kCompactTable)) {
          compact.push_back(row[0].c_str());
        }
        for (const auto& name : health::compactPartitionsToDrop(compact, today, retention)) {
          if (tx.exec(detail::kDropHealthPartition, health::kCompactTable, name)[0][0].as<bool>()) {
            dropped.push_back(name);
          }
        }
        return dropped;
      });
}

namespace {

// One day: its compact partition made, its readings moved, its raw partition dropped, in one
// transaction.
common::Result<long long> compactDay(Database& db, const health::Partition& raw) {
  return detail::withTransaction(
      db, "compact_health_day", [&](Tx& tx) -> common::Result<long long> {
        const health::Partition compact = health::compactPartitionFor(raw.from);
        tx.exec(detail::kEnsureHealthPartition, health::kCompactTable, compact.name,
                boundary(compact.from), boundary(compact.to));
        const long long readings =
            tx.exec(detail::kCountHealthDay, boundary(raw.from), boundary(raw.to))[0][0]
                .as<long long>();
        tx.exec(detail::kCompactHealthDay, boundary(raw.from), boundary(raw.to));
        tx.exec(detail::kDropHealthPartition, health::parentTable(Resolution::kRaw), raw.name);
        return readings;
      });
}

}  // namespace

common::Result<HealthCompaction> compactHealthHistory(Database& db, health::Days today,
                                                      const health::RetentionSettings& retention) {
  PROV_ASSIGN(
      auto existing,
      detail::withRead(
          db, "raw_health_partitions", [&](Tx& tx) -> common::Result<std::vector<std::string>> {
            std::vector<std::string> out;
            for (const auto& row :
                 tx.exec(detail::kHealthPartitions, health::parentTable(Resolution::kRaw))) {
              out.push_back(row[0].c_str());
            }
            return out;
          }));
  HealthCompaction done;
  for (const auto& raw : health::partitionsToCompact(existing, today, retention)) {
    PROV_ASSIGN(auto readings, compactDay(db, raw));
    done.compacted.push_back(raw.name);
    done.readings += readings;
  }
  return done;
}

}  // namespace inventory
