#include "inventory/health/time.hpp"

#include <cctype>
#include <cstdio>

namespace inventory::health {
namespace {

// Reads exactly `n` digits at `pos`, advancing it.
std::optional<int> digits(std::string_view s, std::size_t& pos, std::size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool expect(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// "Z", "+HH:MM", "+HHMM", "-HH:MM": seconds east of UTC; nullopt when malformed.
std::optional<int> offsetSeconds(std::string_view s, std::size_t pos) {
  if (pos == s.size()) return std::nullopt;
  if (s[pos] == 'Z' || s[pos] == 'z')
    return pos + 1 == s.size() ? std::optional<int>(0) : std::nullopt;
  if (s[pos] != '+' && s[pos] != '-') return std::nullopt;
  const int sign = s[pos] == '-' ? -1 : 1;
  ++pos;
  auto hh = digits(s, pos, 2);
  if (pos < s.size() && s[pos] == ':') ++pos;
  auto mm = digits(s, pos, 2);
  if (!hh || !mm || pos != s.size() || *hh > 23 || *mm > 59) return std::nullopt;
  return sign * (*hh * 3600 + *mm * 60);
}

}  // namespace

std::optional<Seconds> parseUtc(std::string_view s) {
  using namespace std::chrono;
  std::size_t pos = 0;
  auto y = digits(s, pos, 4);
  if (!y || !expect(s, pos, '-')) return std::nullopt;
  auto mo = digits(s, pos, 2);
  if (!mo || !expect(s, pos, '-')) return std::nullopt;
  auto d = digits(s, pos, 2);
  if (!d || pos >= s.size() || (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' '))
    return std::nullopt;
  ++pos;
  auto h = digits(s, pos, 2);
  if (!h || !expect(s, pos, ':')) return std::nullopt;
  auto mi = digits(s, pos, 2);
  if (!mi || !expect(s, pos, ':')) return std::nullopt;
  auto sec = digits(s, pos, 2);
  if (!sec) return std::nullopt;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos == start) return std::nullopt;
  }
  auto offset = offsetSeconds(s, pos);
  if (!offset || *h > 23 || *mi > 59 || *sec > 60) return std::nullopt;
  const year_month_day ymd{year{*y}, month{static_cast<unsigned>(*mo)},
                           day{static_cast<unsigned>(*d)}};
  if (!ymd.ok()) return std::nullopt;
  return sys_days{ymd} + hours{*h} + minutes{*mi} + seconds{*sec} - seconds{*offset};
}

std::string formatUtc(Seconds t) {
  using namespace std::chrono;
  const auto day = floor<days>(t);
  const hh_mm_ss<seconds> hms{t - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%sT%02d:%02d:%02dZ", formatDay(day).c_str(),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

std::string formatDay(Days d) {
  const std::chrono::year_month_day ymd{d};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

Days monthOf(Days d) {
  const std::chrono::year_month_day ymd{d};
  return std::chrono::sys_days{ymd.year() / ymd.month() / 1};
}

Days yearOf(Days d) {
  const std::chrono::year_month_day ymd{d};
  return std::chrono::sys_days{ymd.year() / std::chrono::January / 1};
}

}  // namespace inventory::health
