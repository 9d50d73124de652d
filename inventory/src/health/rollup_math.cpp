#include "inventory/health/rollup_math.hpp"

#include <algorithm>

namespace inventory::health {

void Stat::add(double v) {
  ++count;
  sum += v;
  min = std::min(min, v);
  max = std::max(max, v);
}

void Stat::merge(const Stat& other) {
  count += other.count;
  sum += other.sum;
  min = std::min(min, other.min);
  max = std::max(max, other.max);
}

std::optional<double> Stat::avg() const {
  if (count == 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

Stat merged(Stat a, const Stat& b) {
  a.merge(b);
  return a;
}

}  // namespace inventory::health
