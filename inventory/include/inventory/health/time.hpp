// UTC timestamps for health history: ISO-8601 parsing and formatting, and the day/hour/month/year
// a time falls in. Partitions and roll-up buckets are always UTC.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace inventory::health {

using Seconds = std::chrono::sys_seconds;
using Days = std::chrono::sys_days;

// "2026-12-04T10:00:00Z", with optional fractional seconds (dropped) and "Z", "+00:00" or
// "+0000"; other offsets are applied. nullopt for anything else (never throws).
std::optional<Seconds> parseUtc(std::string_view text);
// "2026-12-04T10:00:00Z".
std::string formatUtc(Seconds t);
// "2026-12-04".
std::string formatDay(Days d);

inline Days dayOf(Seconds t) {
  return std::chrono::floor<std::chrono::days>(t);
}
inline Seconds hourOf(Seconds t) {
  return std::chrono::floor<std::chrono::hours>(t);
}
// The whole hours inside [from, to): [first hour starting at or after `from`, start of the hour
// `to` falls in); {to, to} when the range lies within one hour.
struct HourSpan {
  Seconds first;
  Seconds second;
};
inline HourSpan wholeHours(Seconds from, Seconds to) {
  const Seconds first = std::chrono::ceil<std::chrono::hours>(from);
  const Seconds last = hourOf(to);
  if (first > last) return {to, to};
  return {first, last};
}
// The first day of the month / year `d` falls in.
Days monthOf(Days d);
Days yearOf(Days d);

}  // namespace inventory::health
