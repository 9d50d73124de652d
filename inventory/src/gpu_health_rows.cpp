#include "gpu_health_rows.hpp"

#include <nlohmann/json.hpp>

namespace inventory::detail {

using nlohmann::json;
namespace h = health;

namespace {

template <class T>
nlohmann::json optionalJson(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// New PCIe replays, NULL when none (most readings; see migration 0018).
nlohmann::json replayDelta(const h::CounterAdvance& advance) {
  const auto n = h::newPcieReplays(advance);
  return n > 0 ? nlohmann::json(n) : nlohmann::json(nullptr);
}

}  // namespace

std::string countersJson(const health::PerCounter<std::optional<std::uint64_t>>& values) {
  json out = json::object();
  for (std::size_t i = 0; i < health::kCounterCount; ++i) {
    if (values[i]) out[std::string(health::nameOf(health::counterAt(i)))] = *values[i];
  }
  return out.dump();
}

std::string countersJson(const health::PerCounter<std::uint64_t>& values) {
  json out = json::object();
  for (std::size_t i = 0; i < health::kCounterCount; ++i) {
    out[std::string(health::nameOf(health::counterAt(i)))] = values[i];
  }
  return out.dump();
}

health::PerCounter<std::optional<std::uint64_t>> countersFromJson(const std::string& text) {
  health::PerCounter<std::optional<std::uint64_t>> out{};
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [name, value] : j.items()) {
    auto c = health::counterNamed(name);
    if (c && value.is_number_unsigned()) {
      out[static_cast<std::size_t>(*c)] = value.get<std::uint64_t>();
    }
  }
  return out;
}

std::map<std::string, long long> counterMap(const std::string& text) {
  std::map<std::string, long long> out;
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return out;
  for (const auto& [name, value] : j.items()) {
    if (value.is_number_integer()) out[name] = value.get<long long>();
  }
  return out;
}

nlohmann::json sampleRow(Id node_id, const std::string& at, const h::GpuSample& g,
                         h::HealthClass cls, const h::CounterAdvance& advance) {
  nlohmann::json row = {{"gpu_serial", g.serial},
                        {"sampled_at", at},
                        {"node_id", node_id},
                        {"health_class", static_cast<int>(cls)},
                        {"temperature_c", optionalJson(g.temperature_c)},
                        {"power_w", optionalJson(g.power_w)},
                        {"sm_clock_mhz", optionalJson(g.sm_clock_mhz)},
                        {"hbm_temperature_c", optionalJson(g.hbm_temperature_c)},
                        {"mem_clock_mhz", optionalJson(g.mem_clock_mhz)},
                        {"gpu_utilization_pct", optionalJson(g.gpu_utilization_pct)},
                        {"clock_event_reasons", g.clock_event_reasons},
                        {"remap_pending", g.remap_pending},
                        {"remap_failure", g.remap_failure},
                        {"xid_count", g.xids.size()},
                        {"ecc_corrected_delta", h::newEccErrors(advance, false)},
                        {"ecc_uncorrected_delta", h::newEccErrors(advance, true)},
                        {"pcie_replay_delta", replayDelta(advance)}};
  for (std::size_t i = 0; i < h::kCounterCount; ++i) {
    row[std::string(h::nameOf(h::counterAt(i)))] = optionalJson(g.counters[i]);
  }
  return row;
}

}  // namespace inventory::detail
