#include "inventory/health/retention.hpp"

namespace inventory::health {

const char* toString(Resolution r) {
  switch (r) {
    case Resolution::kRaw:
      return "raw";
    case Resolution::kHourly:
      return "hourly";
    case Resolution::kDaily:
      return "daily";
  }
  return "daily";
}

Resolution chooseResolution(Seconds from, Seconds to, Seconds now, const RetentionSettings& s) {
  using std::chrono::days;
  const auto span = to - from;
  if (span <= s.raw_max_span && from >= now - days{s.raw_days}) return Resolution::kRaw;
  if (span <= s.hourly_max_span && from >= now - days{s.hourly_days}) return Resolution::kHourly;
  return Resolution::kDaily;
}

}  // namespace inventory::health
