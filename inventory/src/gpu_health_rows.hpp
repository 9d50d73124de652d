// Shared by the GPU health sources: counter maps as stored (jsonb objects keyed by counter name)
// and timestamps as SQL parameters.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "inventory/health/counters.hpp"
#include "inventory/health/health_class.hpp"
#include "inventory/health/sample.hpp"
#include "inventory/health/time.hpp"
#include "inventory/types.hpp"

namespace inventory::detail {

// {"ecc_corrected_volatile": 12, ...} for the counters that have a value.
std::string countersJson(const health::PerCounter<std::optional<std::uint64_t>>& values);
std::string countersJson(const health::PerCounter<std::uint64_t>& values);
// Reads a stored counter object; unknown names and non-numbers are ignored.
health::PerCounter<std::optional<std::uint64_t>> countersFromJson(const std::string& text);
std::map<std::string, long long> counterMap(const std::string& text);

// One reading as a gpu_health_samples row (jsonb_to_recordset input), from the agent or the
// BMC (whose readings advance no counter: `advance` empty); the counter columns are named as the
// counters are.
nlohmann::json sampleRow(Id node_id, const std::string& at, const health::GpuSample& g,
                         health::HealthClass cls, const health::CounterAdvance& advance);

// "2026-12-04T10:00:00Z": what the ::timestamptz parameters take.
inline std::string sqlTime(health::Seconds t) {
  return health::formatUtc(t);
}

}  // namespace inventory::detail
