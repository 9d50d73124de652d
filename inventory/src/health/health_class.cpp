#include "inventory/health/health_class.hpp"

namespace inventory::health {
namespace {

bool grew(const CounterAdvance& a, Counter c) {
  const auto& step = a.steps[static_cast<std::size_t>(c)];
  return step && !step->baseline && step->increment > 0;
}

}  // namespace

const char* toString(HealthClass c) {
  switch (c) {
    case HealthClass::kHealthy:
      return "healthy";
    case HealthClass::kWarning:
      return "warning";
    case HealthClass::kCritical:
      return "critical";
  }
  return "critical";
}

bool isCriticalXid(int xid) {
  return xid == 48 || xid == 64 || xid == 79 || xid == 94 || xid == 95;
}

HealthClass classify(const GpuSample& sample, const CounterAdvance& advance) {
  bool any_xid = false;
  for (const auto& x : sample.xids) {
    if (isCriticalXid(x.xid)) return HealthClass::kCritical;
    any_xid = true;
  }
  if (sample.remap_failure || newEccErrors(advance, true) > 0) return HealthClass::kCritical;
  if (sample.remap_pending || any_xid || grew(advance, Counter::kRemappedCorrectable) ||
      grew(advance, Counter::kRemappedUncorrectable) || grew(advance, Counter::kRetiredPages)) {
    return HealthClass::kWarning;
  }
  return HealthClass::kHealthy;
}

}  // namespace inventory::health
