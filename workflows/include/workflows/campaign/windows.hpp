// Maintenance windows (pure; the time zone database is the system's, /usr/share/zoneinfo).
//
// A window opens on each of its local days at `start` and closes at `end` the same day (or the
// next day when end <= start: it spans midnight). Each opening is one interval of UTC instants
// [opens, closes): a local time that a DST change skips (spring forward) resolves to the instant
// the clocks jump, a local time that repeats (fall back) opens at its first and closes at its
// second occurrence. A window therefore lasts an hour less or more across a DST change, as the
// wall clock in that zone says. An unknown time zone never opens (the spec rejects it).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "workflows/campaign/spec.hpp"

namespace workflows::campaign {

using TimePoint = std::chrono::system_clock::time_point;

// True when `at` lies in one of the windows; an empty list is always open.
bool windowOpen(const std::vector<Window>& windows, TimePoint at);
// `at` itself when a window is open then; else the earliest instant within 8 days after `at` at
// which one opens; nullopt when none does (never for a valid non-empty list).
std::optional<TimePoint> nextOpening(const std::vector<Window>& windows, TimePoint at);
// When the window that is open at `at` closes (the latest close among open windows); nullopt when
// none is open or the list is empty (always open).
std::optional<TimePoint> currentClosing(const std::vector<Window>& windows, TimePoint at);
// The first pair of windows whose openings intersect during a whole reference year (2026-2027,
// in UTC, so different zones and their DST dates count): the index of the later one, for the
// spec's error.
std::optional<std::size_t> overlappingWindow(const std::vector<Window>& windows);
bool knownTimeZone(const std::string& name);

}  // namespace workflows::campaign
