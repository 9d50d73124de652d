// Roll-up arithmetic: min / sum / count / max summaries that merge exactly, so an hour can be
// built from samples, a day from hours, and a group from GPUs, each without going back to raw data.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace inventory::health {

struct Stat {
  std::int64_t count = 0;
  double sum = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();

  void add(double v);
  // Empty stats are the identity: merge(a, Stat{}) == a.
  void merge(const Stat& other);
  std::optional<double> avg() const;
  bool empty() const { return count == 0; }
};

Stat merged(Stat a, const Stat& b);

}  // namespace inventory::health
