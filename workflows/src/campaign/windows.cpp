// Weekly maintenance windows in their time zones, through Howard Hinnant's date/tz (Debian's
// libhowardhinnant-date-dev, on the system's tz database): g++ 12 has no std::chrono::tzdb.
#include "workflows/campaign/windows.hpp"

#include <date/tz.h>

#include <algorithm>

namespace workflows::campaign {
namespace {

using std::chrono::minutes;

struct Interval {
  TimePoint opens, closes;
};

const date::time_zone* zoneOf(const std::string& name) {
  if (name.empty()) return nullptr;
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

bool onDay(const Window& w, int weekday) {
  return std::find(w.days.begin(), w.days.end(), weekday) != w.days.end();
}

// A local time as a UTC instant: skipped times resolve to the jump, repeated ones to their first
// (`earliest`) or second occurrence.
TimePoint resolve(const date::time_zone* zone, date::local_time<minutes> local, bool earliest) {
  const auto info = zone->get_info(local);
  if (info.result == date::local_info::nonexistent) return info.second.begin;
  return zone->to_sys(local, earliest ? date::choose::earliest : date::choose::latest);
}

// The opening of `w` on local date `day`, if it opens that weekday.
std::optional<Interval> openingOn(const Window& w, const date::time_zone* zone,
                                  date::local_days day) {
  if (!onDay(w, static_cast<int>(date::weekday(day).c_encoding()))) return std::nullopt;
  const auto end_day = w.end_minute > w.start_minute ? day : day + date::days(1);
  const Interval i{
      resolve(zone, date::local_time<minutes>{day + minutes(w.start_minute)}, true),
      resolve(zone, date::local_time<minutes>{end_day + minutes(w.end_minute)}, false)};
  if (i.closes <= i.opens) return std::nullopt;  // wholly inside a skipped hour
  return i;
}

date::local_days localDay(const date::time_zone* zone, TimePoint at) {
  return date::floor<date::days>(zone->to_local(std::chrono::time_point_cast<minutes>(at)));
}

// Every opening of `w` whose local date lies in [first, last] days around `at`'s local date.
template <typename F>
void eachOpening(const Window& w, TimePoint at, int first, int last, F&& f) {
  const auto* zone = zoneOf(w.time_zone);
  if (zone == nullptr) return;
  const auto today = localDay(zone, at);
  for (int d = first; d <= last; ++d) {
    if (auto i = openingOn(w, zone, today + date::days(d))) f(*i);
  }
}

}  // namespace

bool knownTimeZone(const std::string& name) {
  return zoneOf(name) != nullptr;
}

bool windowOpen(const std::vector<Window>& windows, TimePoint at) {
  if (windows.empty()) return true;
  return currentClosing(windows, at).has_value();
}

std::optional<TimePoint> currentClosing(const std::vector<Window>& windows, TimePoint at) {
  std::optional<TimePoint> closes;
  for (const auto& w : windows) {
    // An opening lasts at most a day and an hour: it began today or on one of the two days before.
    eachOpening(w, at, -2, 0, [&](const Interval& i) {
      if (i.opens <= at && at < i.closes && (!closes || i.closes > *closes)) closes = i.closes;
    });
  }
  return closes;
}

std::optional<TimePoint> nextOpening(const std::vector<Window>& windows, TimePoint at) {
  if (windowOpen(windows, at)) return at;
  const TimePoint horizon = at + std::chrono::hours(24 * 8);
  std::optional<TimePoint> best;
  for (const auto& w : windows) {
    eachOpening(w, at, -1, 9, [&](const Interval& i) {
      if (i.opens > at && i.opens <= horizon && (!best || i.opens < *best)) best = i.opens;
    });
  }
  return best;
}

std::optional<std::size_t> overlappingWindow(const std::vector<Window>& windows) {
  // Every opening over a year from Monday 2026-01-05 (UTC): a year covers every DST date of
  // every zone, so windows in zones that switch on different dates are compared too.
  const TimePoint from = date::sys_days{date::year{2026} / 1 / 5};
  std::vector<std::vector<Interval>> openings(windows.size());
  for (std::size_t k = 0; k < windows.size(); ++k) {
    eachOpening(windows[k], from, 0, 371, [&](const Interval& i) { openings[k].push_back(i); });
  }
  for (std::size_t b = 1; b < windows.size(); ++b) {
    for (std::size_t a = 0; a < b; ++a) {
      for (const auto& x : openings[a]) {
        for (const auto& y : openings[b]) {
          if (x.opens < y.closes && y.opens < x.closes) return b;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace workflows::campaign
