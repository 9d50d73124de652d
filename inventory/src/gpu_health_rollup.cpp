// Incremental roll-ups: each marked (hour, node) is recomputed from raw samples once the hour has
// ended, each marked (day, node) from its hours; a mark is taken (deleted) by the run that
// recomputes it, so re-runs are no-ops and late readings (which mark again) are rolled up again.
#include <set>
#include <utility>

#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "inventory/gpu_health.hpp"
#include "queries_gpu_health.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

struct DueBuckets {
  std::vector<std::string> buckets;
  std::vector<std::string> nodes;
  bool empty() const { return buckets.empty(); }
};

// A statement of its own, before the recompute: the recompute's snapshot then includes every
// batch whose mark this took (those batches held the mark's row lock until they committed).
DueBuckets takeDue(Tx& tx, const char* level, const char* length, health::Seconds now) {
  DueBuckets due;
  for (const auto& row : tx.exec(detail::kTakeRollupDue, level, length, detail::sqlTime(now))) {
    due.buckets.push_back(row[0].c_str());
    due.nodes.push_back(row[1].c_str());
  }
  return due;
}

// The (day, node) marks for the hours just rolled up, each once.
DueBuckets daysOf(const DueBuckets& hours) {
  std::set<std::pair<std::string, std::string>> days;
  for (std::size_t i = 0; i < hours.buckets.size(); ++i) {
    auto t = health::parseUtc(hours.buckets[i]);
    if (t) days.insert({detail::sqlTime(health::Seconds{health::dayOf(*t)}), hours.nodes[i]});
  }
  DueBuckets out;
  for (const auto& [day, node] : days) {
    out.buckets.push_back(day);
    out.nodes.push_back(node);
  }
  return out;
}

}  // namespace

common::Result<HealthRollupRun> rollUpHealth(Database& db, health::Seconds now) {
  return detail::withTransaction(
      db, "roll_up_health", [&](Tx& tx) -> common::Result<HealthRollupRun> {
        HealthRollupRun run;
        const DueBuckets hours = takeDue(tx, "hourly", "1 hour", now);
        if (!hours.empty()) {
          tx.exec(detail::kRollUpHours, detail::textArray(hours.buckets),
                  detail::textArray(hours.nodes));
          const DueBuckets days = daysOf(hours);
          tx.exec(detail::kMarkRollupDue, "daily", detail::textArray(days.buckets),
                  detail::textArray(days.nodes));
          run.hourly_buckets = static_cast<int>(hours.buckets.size());
        }
        const DueBuckets days = takeDue(tx, "daily", "1 day", now);
        if (!days.empty()) {
          tx.exec(detail::kRollUpDays, detail::textArray(days.buckets),
                  detail::textArray(days.nodes));
          run.daily_buckets = static_cast<int>(days.buckets.size());
        }
        return run;
      });
}

}  // namespace inventory
