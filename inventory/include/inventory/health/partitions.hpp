// The partitions of the health tables: their names and ranges, which to create for a span of
// days, and which retention drops (whole partitions, never rows).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/health/retention.hpp"
#include "inventory/health/time.hpp"

namespace inventory::health {

// Raw samples are partitioned by day, hourly roll-ups by month, daily roll-ups by year: each
// partition holds a few days to a year of rows, and retention is exact to within one partition.
struct Partition {
  std::string name;  // "gpu_health_samples_20261204", "gpu_health_hourly_202612", ..._daily_2026
  Days from;         // inclusive
  Days to;           // exclusive
};

// "gpu_health_samples", "gpu_health_hourly", "gpu_health_daily".
const char* parentTable(Resolution level);

Partition partitionFor(Resolution level, Days day);
// Every partition that [first, last] (inclusive days) touches, oldest first, without repeats.
std::vector<Partition> partitionsCovering(Resolution level, Days first, Days last);
// The partition a name stands for; nullopt for names that are not this level's partitions.
std::optional<Partition> parsePartition(Resolution level, std::string_view name);
// Retention: the names among `existing` whose whole range ended at least the level's retention
// before `today` (a partition straddling the cutoff is kept). Never anything for kept-forever.
std::vector<std::string> partitionsToDrop(Resolution level,
                                          const std::vector<std::string>& existing, Days today,
                                          const RetentionSettings& s);
int retentionDays(Resolution level, const RetentionSettings& s);

// The compacted raw history (migrations/0021_health_compact.sql): day partitions like the raw
// table's, "gpu_health_compact_20261204", kept as long as raw samples.
inline constexpr const char* kCompactTable = "gpu_health_compact";
Partition compactPartitionFor(Days day);
// Retention of the compact table: as partitionsToDrop for raw samples.
std::vector<std::string> compactPartitionsToDrop(const std::vector<std::string>& existing,
                                                 Days today, const RetentionSettings& s);
// The raw partitions among `existing` to compact now: those whose day ended at least
// `s.compact_after_days` days before `today`, oldest first (none when compact_after_days is 0).
std::vector<Partition> partitionsToCompact(const std::vector<std::string>& existing, Days today,
                                           const RetentionSettings& s);

}  // namespace inventory::health
