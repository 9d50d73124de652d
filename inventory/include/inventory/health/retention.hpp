// How long each resolution of health history is kept, and which resolution answers a range.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "inventory/health/time.hpp"

namespace inventory::health {

enum class Resolution { kRaw, kHourly, kDaily };

const char* toString(Resolution r);

struct RetentionSettings {
  int raw_days = 14;
  int hourly_days = 90;
  int daily_days = 0;  // 0: kept forever
  // Raw readings of a day that ended at least this many days ago are compacted (one row of
  // arrays per GPU and hour, docs/health.md "Storage"); 0: never.
  int compact_after_days = 1;
  // The longest range answered from raw samples / hourly roll-ups (beyond: the next coarser one,
  // so that one answer stays a few thousand points per GPU).
  std::chrono::hours raw_max_span{48};
  std::chrono::hours hourly_max_span{24 * 31};
};

// The finest resolution that still holds all of [from, to) and is not too dense for its length.
// Raw samples also need `from` within the raw retention, hourly ones within the hourly one.
Resolution chooseResolution(Seconds from, Seconds to, Seconds now, const RetentionSettings& s);

// Whether `r` may answer [from, to): raw and hourly within their longest span and retention
// (what chooseResolution checks), daily always.
bool resolutionCovers(Resolution r, Seconds from, Seconds to, Seconds now,
                      const RetentionSettings& s);

// "raw", "hourly", "daily" (as a request names them); nullopt for anything else.
std::optional<Resolution> resolutionNamed(std::string_view name);

}  // namespace inventory::health
