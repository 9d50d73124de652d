// The health class of one reading, for the roll-ups' counts per class. A provisional rule from
// NVIDIA's documented actions; the policy engine (flags, issue 13 §3) will refine it.
#pragma once

#include "inventory/health/counters.hpp"
#include "inventory/health/sample.hpp"

namespace inventory::health {

enum class HealthClass { kHealthy = 0, kWarning = 1, kCritical = 2 };

const char* toString(HealthClass c);

// XIDs after which NVIDIA says drain the GPU: 48 (double-bit ECC), 64 (row remap failure),
// 79 (fallen off the bus), 94/95 (contained/uncontained ECC).
bool isCriticalXid(int xid);

// Critical: remap failure, a new uncorrectable ECC error, or a critical XID. Warning: remap
// pending, newly remapped rows or retired pages, any other XID. Healthy otherwise.
HealthClass classify(const GpuSample& sample, const CounterAdvance& advance);

}  // namespace inventory::health
