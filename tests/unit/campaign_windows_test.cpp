// Maintenance windows at fixed instants: time zones, midnight, both DST changes, next opening,
// and the overlap check the spec uses.
#include <catch2/catch.hpp>

#include <ctime>

#include "workflows/campaign/windows.hpp"

using namespace workflows::campaign;

namespace {

// An instant in UTC.
TimePoint utc(int y, int mo, int d, int h, int mi) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

constexpr int kSun = 0, kFri = 5, kSat = 6;

Window window(std::vector<int> days, int start_h, int start_m, int end_h, int end_m,
              std::string zone) {
  return Window{std::move(days), start_h * 60 + start_m, end_h * 60 + end_m, std::move(zone)};
}

}  // namespace

// Berlin: CET (UTC+1) until Sunday 2027-03-28 02:00, then CEST (UTC+2) until Sunday 2027-10-31
// 03:00 CEST.
TEST_CASE("a Berlin Saturday window follows the zone across the March DST change", "[campaign]") {
  const std::vector<Window> w = {window({kSat}, 1, 0, 5, 0, "Europe/Berlin")};
  // Saturday 2027-03-27, the night before the change (CET): 01:00-05:00 = 00:00-04:00 UTC.
  CHECK_FALSE(windowOpen(w, utc(2027, 3, 26, 23, 59)));
  CHECK(windowOpen(w, utc(2027, 3, 27, 0, 0)));
  CHECK(windowOpen(w, utc(2027, 3, 27, 3, 59)));
  CHECK_FALSE(windowOpen(w, utc(2027, 3, 27, 4, 0)));
  // Saturday 2027-04-03, after it (CEST): 01:00-05:00 = Friday 23:00 - Saturday 03:00 UTC.
  CHECK_FALSE(windowOpen(w, utc(2027, 4, 2, 22, 59)));
  CHECK(windowOpen(w, utc(2027, 4, 2, 23, 0)));
  CHECK(windowOpen(w, utc(2027, 4, 3, 2, 59)));
  CHECK_FALSE(windowOpen(w, utc(2027, 4, 3, 3, 0)));
  // Closed on the other days of the week, at the same local hours.
  CHECK_FALSE(windowOpen(w, utc(2027, 3, 28, 0, 30)));  // Sunday 01:30 CET
  CHECK_FALSE(windowOpen(w, utc(2027, 3, 24, 1, 0)));   // Wednesday 02:00 CET
  // nextOpening moves with the change too.
  CHECK(nextOpening(w, utc(2027, 3, 27, 4, 0)) == utc(2027, 4, 2, 23, 0));
}

TEST_CASE("a window holding the spring-forward hour is an hour shorter", "[campaign]") {
  // Sunday 2027-03-28 01:00-05:00 local: opens 00:00 UTC (CET), closes 05:00 CEST = 03:00 UTC.
  const std::vector<Window> w = {window({kSun}, 1, 0, 5, 0, "Europe/Berlin")};
  CHECK(windowOpen(w, utc(2027, 3, 28, 0, 0)));
  CHECK(windowOpen(w, utc(2027, 3, 28, 1, 0)));  // the clocks jump 02:00 -> 03:00 here
  CHECK(windowOpen(w, utc(2027, 3, 28, 2, 59)));
  CHECK_FALSE(windowOpen(w, utc(2027, 3, 28, 3, 0)));
  CHECK(currentClosing(w, utc(2027, 3, 28, 0, 10)) == utc(2027, 3, 28, 3, 0));
  // A window that opens at 02:30, a time that does not exist that night, opens when the clocks
  // jump (03:00 CEST = 01:00 UTC); windowOpen agrees with nextOpening.
  const std::vector<Window> gap = {window({kSun}, 2, 30, 4, 0, "Europe/Berlin")};
  CHECK_FALSE(windowOpen(gap, utc(2027, 3, 28, 0, 59)));
  CHECK(windowOpen(gap, utc(2027, 3, 28, 1, 0)));
  CHECK(nextOpening(gap, utc(2027, 3, 27, 12, 0)) == utc(2027, 3, 28, 1, 0));
  CHECK_FALSE(windowOpen(gap, utc(2027, 3, 28, 2, 0)));  // 04:00 CEST
}

TEST_CASE("a window holding the fall-back hour is an hour longer", "[campaign]") {
  // Sunday 2027-10-31 01:00-04:00 local: opens 01:00 CEST = Saturday 23:00 UTC, closes 04:00 CET
  // = 03:00 UTC: four hours.
  const std::vector<Window> w = {window({kSun}, 1, 0, 4, 0, "Europe/Berlin")};
  CHECK_FALSE(windowOpen(w, utc(2027, 10, 30, 22, 59)));
  CHECK(windowOpen(w, utc(2027, 10, 30, 23, 0)));
  CHECK(windowOpen(w, utc(2027, 10, 31, 1, 30)));  // 02:30 the second time (CET)
  CHECK(windowOpen(w, utc(2027, 10, 31, 2, 59)));
  CHECK_FALSE(windowOpen(w, utc(2027, 10, 31, 3, 0)));
  // Ending inside the repeated hour: closes at its second occurrence (02:30 CET = 01:30 UTC).
  const std::vector<Window> repeated = {window({kSun}, 1, 0, 2, 30, "Europe/Berlin")};
  CHECK(windowOpen(repeated, utc(2027, 10, 31, 1, 29)));
  CHECK_FALSE(windowOpen(repeated, utc(2027, 10, 31, 1, 30)));
}

TEST_CASE("a window may span midnight", "[campaign]") {
  // Friday 22:00 - Saturday 02:00 UTC; 2027-01-01 is a Friday.
  const std::vector<Window> w = {window({kFri}, 22, 0, 2, 0, "UTC")};
  CHECK_FALSE(windowOpen(w, utc(2027, 1, 1, 21, 59)));
  CHECK(windowOpen(w, utc(2027, 1, 1, 22, 0)));
  CHECK(windowOpen(w, utc(2027, 1, 1, 23, 0)));
  CHECK(windowOpen(w, utc(2027, 1, 2, 1, 59)));  // Saturday morning belongs to Friday's window
  CHECK_FALSE(windowOpen(w, utc(2027, 1, 2, 2, 0)));
  CHECK_FALSE(windowOpen(w, utc(2027, 1, 2, 22, 0)));   // Saturday evening: not an opening day
  CHECK_FALSE(windowOpen(w, utc(2026, 12, 31, 1, 0)));  // Thursday morning
  CHECK(currentClosing(w, utc(2027, 1, 1, 23, 0)) == utc(2027, 1, 2, 2, 0));
  // In Berlin across midnight: Saturday 22:00 - Sunday 06:00 CET = 21:00 - 05:00 UTC.
  const std::vector<Window> berlin = {window({kSat}, 22, 0, 6, 0, "Europe/Berlin")};
  CHECK(windowOpen(berlin, utc(2027, 1, 2, 21, 0)));
  CHECK(windowOpen(berlin, utc(2027, 1, 3, 4, 59)));
  CHECK_FALSE(windowOpen(berlin, utc(2027, 1, 3, 5, 0)));
  CHECK_FALSE(windowOpen(berlin, utc(2027, 1, 2, 20, 59)));
}

TEST_CASE("an end of 24:00 closes at the next midnight", "[campaign]") {
  const std::vector<Window> w = {window({kSat}, 20, 0, 24, 0, "UTC")};
  CHECK(windowOpen(w, utc(2027, 1, 2, 23, 59)));
  CHECK_FALSE(windowOpen(w, utc(2027, 1, 3, 0, 0)));
}

TEST_CASE("no windows: always open; closed outside every window", "[campaign]") {
  CHECK(windowOpen({}, utc(2027, 1, 1, 12, 0)));
  CHECK(nextOpening({}, utc(2027, 1, 1, 12, 0)) == utc(2027, 1, 1, 12, 0));
  CHECK_FALSE(currentClosing({}, utc(2027, 1, 1, 12, 0)));
  const std::vector<Window> two = {window({kSat}, 1, 0, 5, 0, "Europe/Berlin"),
                                   window({3}, 2, 0, 4, 0, "America/New_York")};  // Wednesday
  for (int h = 0; h < 24; ++h) {
    CHECK_FALSE(windowOpen(two, utc(2027, 1, 7, h, 0)));  // Thursday, all day
  }
  CHECK(windowOpen(two, utc(2027, 1, 6, 7, 0)));  // Wednesday 02:00 EST
  CHECK_FALSE(windowOpen(two, utc(2027, 1, 6, 9, 0)));
}

TEST_CASE("the next opening of closed windows", "[campaign]") {
  const std::vector<Window> w = {window({kSat}, 1, 0, 5, 0, "Europe/Berlin")};
  // Wednesday 2027-03-24 12:00 UTC -> Saturday 01:00 CET = Saturday 00:00 UTC.
  CHECK(nextOpening(w, utc(2027, 3, 24, 12, 0)) == utc(2027, 3, 27, 0, 0));
  // Just after it closed: a week later, in summer time.
  CHECK(nextOpening(w, utc(2027, 3, 27, 4, 0)) == utc(2027, 4, 2, 23, 0));
  // While open: now.
  const auto open = utc(2027, 3, 27, 1, 0);
  CHECK(nextOpening(w, open) == open);
  // The earliest of several windows in different zones.
  const std::vector<Window> two = {w[0], window({3}, 2, 0, 4, 0, "America/New_York")};
  CHECK(nextOpening(two, utc(2027, 3, 24, 0, 0)) == utc(2027, 3, 24, 6, 0));  // Wed 02:00 EDT
  CHECK(nextOpening(two, utc(2027, 3, 24, 12, 0)) == utc(2027, 3, 27, 0, 0));
  // A window in an unknown zone never opens.
  CHECK_FALSE(nextOpening({window({kSat}, 1, 0, 5, 0, "Mars/Olympus")}, open));
}

TEST_CASE("every next opening is open and nothing before it is", "[campaign]") {
  const std::vector<Window> w = {window({kSat}, 22, 0, 6, 0, "Europe/Berlin"),
                                 window({2, 4}, 13, 0, 14, 30, "Asia/Tokyo")};
  // Every 7 hours for a year from 2027-01-01: the opening is open, the minute before is not.
  for (auto t = utc(2027, 1, 1, 0, 0); t < utc(2028, 1, 1, 0, 0); t += std::chrono::hours(7)) {
    auto next = nextOpening(w, t);
    REQUIRE(next);
    CHECK(*next >= t);
    CHECK(*next - t <= std::chrono::hours(24 * 8));
    CHECK(windowOpen(w, *next));
    if (*next > t) CHECK_FALSE(windowOpen(w, *next - std::chrono::minutes(1)));
  }
}

TEST_CASE("overlapping windows are found, also across zones and only in summer", "[campaign]") {
  const Window sat_night = window({kSat}, 22, 0, 6, 0, "Europe/Berlin");
  CHECK_FALSE(overlappingWindow({sat_night}));
  CHECK(overlappingWindow({sat_night, window({kSun}, 3, 0, 4, 0, "Europe/Berlin")}) == 1u);
  CHECK_FALSE(overlappingWindow({sat_night, window({kSun}, 6, 0, 8, 0, "Europe/Berlin")}));
  // Berlin Saturday 01:00-02:00 is Saturday 00:00 UTC in winter but Friday 23:00 UTC in summer:
  // a UTC window Friday 23:00-23:30 meets it only from March to October.
  const Window berlin = window({kSat}, 1, 0, 2, 0, "Europe/Berlin");
  CHECK(overlappingWindow({berlin, window({kFri}, 23, 0, 23, 30, "UTC")}) == 1u);
  CHECK_FALSE(overlappingWindow({berlin, window({kFri}, 22, 0, 22, 59, "UTC")}));
  // The later of the pair is named.
  CHECK(overlappingWindow({window({1}, 1, 0, 2, 0, "UTC"), berlin,
                           window({kSat}, 1, 30, 1, 45, "Europe/Berlin")}) == 2u);
}

TEST_CASE("time zones are known by their IANA names", "[campaign]") {
  CHECK(knownTimeZone("Europe/Berlin"));
  CHECK(knownTimeZone("UTC"));
  CHECK(knownTimeZone("America/Los_Angeles"));
  CHECK_FALSE(knownTimeZone("Mars/Olympus"));
  CHECK_FALSE(knownTimeZone(""));
  CHECK_FALSE(knownTimeZone("../../etc/passwd"));
}
