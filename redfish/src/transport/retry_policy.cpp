#include "transport/retry_policy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <ctime>
#include "transport/text.hpp"

namespace redfish::detail {
namespace {

bool retryableStatus(long status) {
  return status == 502 || status == 503 || status == 504;
}

std::optional<int> number(std::string_view text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int> monthIndex(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (std::size_t i = 0; i < kMonths.size(); ++i) {
    if (kMonths[i] == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

// IMF-fixdate only ("Sun, 06 Nov 1994 08:49:37 GMT"), the form RFC 9110 requires senders to use.
std::optional<std::chrono::system_clock::time_point> parseHttpDate(std::string_view text) {
  if (text.size() != 29 || text.substr(3, 2) != ", " || text.substr(25) != " GMT") {
    return std::nullopt;
  }
  auto day = number(text.substr(5, 2));
  auto month = monthIndex(text.substr(8, 3));
  auto year = number(text.substr(12, 4));
  auto hour = number(text.substr(17, 2));
  auto minute = number(text.substr(20, 2));
  auto second = number(text.substr(23, 2));
  if (!day || !month || !year || !hour || !minute || !second) return std::nullopt;
  if (text[19] != ':' || text[22] != ':') return std::nullopt;
  std::tm tm{};
  tm.tm_mday = *day;
  tm.tm_mon = *month;
  tm.tm_year = *year - 1900;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  std::time_t seconds = timegm(&tm);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(seconds);
}

}  // namespace

bool shouldRetry(Method method, AttemptFailure failure, long status, int attempt, int maxAttempts) {
  if (attempt >= maxAttempts) return false;
  switch (failure) {
    case AttemptFailure::kNone:
      // A BMC answering 502/503/504 did not act on the request, POST included.
      return retryableStatus(status);
    case AttemptFailure::kConnect:
      return true;  // nothing was sent
    case AttemptFailure::kBrokenAfterSend:
    case AttemptFailure::kTimeout:
      return method != Method::kPost;  // a POST may have been acted on
    case AttemptFailure::kTls:
    case AttemptFailure::kOther:
      return false;
  }
  return false;
}

std::chrono::milliseconds backoffDelay(int attempt, std::chrono::milliseconds base,
                                       std::chrono::milliseconds cap, std::mt19937_64& random) {
  std::int64_t full = std::max<std::int64_t>(base.count(), 0);
  for (int i = 1; i < attempt && full < cap.count(); ++i) full *= 2;
  full = std::min<std::int64_t>(full, cap.count());
  if (full <= 1) return std::chrono::milliseconds(full);
  std::uniform_int_distribution<std::int64_t> jitter(full / 2, full);
  return std::chrono::milliseconds(jitter(random));
}

std::optional<std::chrono::milliseconds> parseRetryAfter(
    std::string_view value, std::chrono::system_clock::time_point now) {
  value = trimmed(value);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    std::int64_t seconds = 0;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (error != std::errc{} || end != value.data() + value.size()) return std::nullopt;
    seconds = std::min<std::int64_t>(seconds, 24 * 3600);  // no overflow on absurd values
    return std::chrono::milliseconds(seconds * 1000);
  }
  auto date = parseHttpDate(value);
  if (!date) return std::nullopt;
  auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(*date - now);
  return std::max(delay, std::chrono::milliseconds(0));
}

}  // namespace redfish::detail
