#include "inventory/health/partitions.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace inventory::health {
namespace {

using namespace std::chrono;

// The digits after the parent's name: 8 (YYYYMMDD), 6 (YYYYMM) or 4 (YYYY).
std::size_t suffixLength(Resolution level) {
  switch (level) {
    case Resolution::kRaw:
      return 8;
    case Resolution::kHourly:
      return 6;
    case Resolution::kDaily:
      return 4;
  }
  return 4;
}

Days spanStart(Resolution level, Days day) {
  switch (level) {
    case Resolution::kRaw:
      return day;
    case Resolution::kHourly:
      return monthOf(day);
    case Resolution::kDaily:
      return yearOf(day);
  }
  return day;
}

Days spanEnd(Resolution level, Days start) {
  const year_month_day ymd{start};
  switch (level) {
    case Resolution::kRaw:
      return start + days{1};
    case Resolution::kHourly:
      return sys_days{ymd.year() / ymd.month() / 1 + months{1}};
    case Resolution::kDaily:
      return sys_days{(ymd.year() + years{1}) / January / 1};
  }
  return start + days{1};
}

std::string suffix(Resolution level, Days start) {
  const year_month_day ymd{start};
  const int y = static_cast<int>(ymd.year());
  const unsigned m = static_cast<unsigned>(ymd.month());
  const unsigned d = static_cast<unsigned>(ymd.day());
  char buf[16];
  if (level == Resolution::kRaw) {
    std::snprintf(buf, sizeof buf, "%04d%02u%02u", y, m, d);
  } else if (level == Resolution::kHourly) {
    std::snprintf(buf, sizeof buf, "%04d%02u", y, m);
  } else {
    std::snprintf(buf, sizeof buf, "%04d", y);
  }
  return buf;
}

int number(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

const char* parentTable(Resolution level) {
  switch (level) {
    case Resolution::kRaw:
      return "gpu_health_samples";
    case Resolution::kHourly:
      return "gpu_health_hourly";
    case Resolution::kDaily:
      return "gpu_health_daily";
  }
  return "gpu_health_daily";
}

Partition partitionFor(Resolution level, Days day) {
  const Days start = spanStart(level, day);
  return {std::string(parentTable(level)) + "_" + suffix(level, start), start,
          spanEnd(level, start)};
}

std::vector<Partition> partitionsCovering(Resolution level, Days first, Days last) {
  std::vector<Partition> out;
  for (Days d = spanStart(level, first); d <= last;) {
    out.push_back(partitionFor(level, d));
    d = out.back().to;
  }
  return out;
}

std::optional<Partition> parsePartition(Resolution level, std::string_view name) {
  const std::string prefix = std::string(parentTable(level)) + "_";
  const std::size_t n = suffixLength(level);
  if (name.size() != prefix.size() + n || name.substr(0, prefix.size()) != prefix) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(prefix.size());
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  const int y = number(digits.substr(0, 4));
  const unsigned m = n >= 6 ? static_cast<unsigned>(number(digits.substr(4, 2))) : 1;
  const unsigned d = n >= 8 ? static_cast<unsigned>(number(digits.substr(6, 2))) : 1;
  const year_month_day ymd{year{y}, month{m}, day{d}};
  if (!ymd.ok()) return std::nullopt;
  Partition p = partitionFor(level, sys_days{ymd});
  if (p.name != name) return std::nullopt;
  return p;
}

int retentionDays(Resolution level, const RetentionSettings& s) {
  switch (level) {
    case Resolution::kRaw:
      return s.raw_days;
    case Resolution::kHourly:
      return s.hourly_days;
    case Resolution::kDaily:
      return s.daily_days;
  }
  return 0;
}

namespace {

std::optional<Partition> parseCompactPartition(std::string_view name) {
  const std::string_view prefix = "gpu_health_compact_";
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  auto raw = parsePartition(Resolution::kRaw, std::string(parentTable(Resolution::kRaw)) + "_" +
                                                  std::string(name.substr(prefix.size())));
  if (!raw) return std::nullopt;
  return compactPartitionFor(raw->from);
}

}  // namespace

Partition compactPartitionFor(Days day) {
  Partition p = partitionFor(Resolution::kRaw, day);
  p.name = std::string(kCompactTable) +
           p.name.substr(std::string_view(parentTable(Resolution::kRaw)).size());
  return p;
}

std::vector<std::string> compactPartitionsToDrop(const std::vector<std::string>& existing,
                                                 Days today, const RetentionSettings& s) {
  std::vector<std::string> out;
  if (s.raw_days <= 0) return out;
  const Days cutoff = today - days{s.raw_days};
  for (const auto& name : existing) {
    auto p = parseCompactPartition(name);
    if (p && p->to <= cutoff) out.push_back(name);
  }
  return out;
}

std::vector<Partition> partitionsToCompact(const std::vector<std::string>& existing, Days today,
                                           const RetentionSettings& s) {
  std::vector<Partition> out;
  if (s.compact_after_days <= 0) return out;
  const Days cutoff = today - days{s.compact_after_days};
  for (const auto& name : existing) {
    auto p = parsePartition(Resolution::kRaw, name);
    if (p && p->to <= cutoff) out.push_back(*p);
  }
  std::sort(out.begin(), out.end(),
            [](const Partition& a, const Partition& b) { return a.from < b.from; });
  return out;
}

std::vector<std::string> partitionsToDrop(Resolution level,
                                          const std::vector<std::string>& existing, Days today,
                                          const RetentionSettings& s) {
  std::vector<std::string> out;
  const int keep = retentionDays(level, s);
  if (keep <= 0) return out;
  const Days cutoff = today - days{keep};
  for (const auto& name : existing) {
    auto p = parsePartition(level, name);
    if (p && p->to <= cutoff) out.push_back(name);
  }
  return out;
}

}  // namespace inventory::health
