#include "gpu_health_rows.hpp"

#include <nlohmann/json.hpp>

namespace inventory::detail {

using nlohmann::json;

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

}  // namespace inventory::detail
