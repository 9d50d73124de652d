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

bool resolutionCovers(Resolution r, Seconds from, Seconds to, Seconds now,
                      const RetentionSettings& s) {
  using std::chrono::days;
  const auto span = to - from;
  switch (r) {
    case Resolution::kRaw:
      return span <= s.raw_max_span && from >= now - days{s.raw_days};
    case Resolution::kHourly:
      return span <= s.hourly_max_span && from >= now - days{s.hourly_days};
    case Resolution::kDaily:
      return true;
  }
  return true;
}

Resolution chooseResolution(Seconds from, Seconds to, Seconds now, const RetentionSettings& s) {
  for (Resolution r : {Resolution::kRaw, Resolution::kHourly}) {
    if (resolutionCovers(r, from, to, now, s)) return r;
  }
  return Resolution::kDaily;
}

std::optional<Resolution> resolutionNamed(std::string_view name) {
  for (Resolution r : {Resolution::kRaw, Resolution::kHourly, Resolution::kDaily}) {
    if (name == toString(r)) return r;
  }
  return std::nullopt;
}

}  // namespace inventory::health
