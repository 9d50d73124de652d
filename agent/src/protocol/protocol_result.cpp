// Task results on the wire: measurements and what the health watch saw.
#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/wipe_json.hpp"

namespace agent {

using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;

namespace {

constexpr const char* kInvalidResult = "invalid_result";
constexpr std::size_t kMaxMeasurements = 10000;
constexpr std::size_t kMaxHealth = 64;
constexpr std::size_t kMaxEvents = 1000;
constexpr std::size_t kMaxThrottleReasons = 32;
constexpr double kMaxMeasuredValue = 1e7;  // far above any GPU's TFLOP/s or GB/s

nlohmann::json toJson(const Measurement& m) {
  nlohmann::json out = {{"gpu_serial", m.gpu_serial}, {"gpu_uuid", m.gpu_uuid},
                        {"gpu_model", m.gpu_model},   {"test", m.test},
                        {"value", m.value},           {"unit", m.unit}};
  if (!m.peer_serial.empty()) out["peer_serial"] = m.peer_serial;
  return out;
}

nlohmann::json toJson(const GpuHealth& h) {
  return {{"gpu_serial", h.gpu_serial},
          {"ecc_corrected", h.ecc_corrected},
          {"ecc_uncorrected", h.ecc_uncorrected},
          {"xid_events", h.xid_events},
          {"max_temperature_c", h.max_temperature_c},
          {"throttle_reasons", h.throttle_reasons}};
}

Result<Measurement> parseMeasurement(const nlohmann::json& value, std::string path) {
  ObjectReader reader(value, std::move(path), kInvalidResult);
  PROV_TRY(reader.requireObject());
  Measurement m;
  PROV_TRY(reader.readString("gpu_serial", m.gpu_serial, Need::kRequired));
  PROV_TRY(reader.readString("gpu_uuid", m.gpu_uuid, Need::kOptional));
  PROV_TRY(reader.readString("gpu_model", m.gpu_model, Need::kOptional));
  PROV_TRY(reader.readString("test", m.test, Need::kRequired));
  if (!isKnownTest(m.test)) return reader.error("test", "unknown test '" + m.test + "'");
  PROV_TRY(reader.readDouble("value", m.value, 0, kMaxMeasuredValue, Need::kRequired));
  PROV_TRY(reader.readString("unit", m.unit, Need::kOptional));
  PROV_TRY(reader.readString("peer_serial", m.peer_serial, Need::kOptional));
  return m;
}

Result<std::vector<int>> parseXids(const ObjectReader& reader) {
  PROV_ASSIGN(const nlohmann::json* array,
              reader.readArray("xid_events", kMaxEvents, Need::kOptional));
  std::vector<int> xids;
  if (array == nullptr) return xids;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const nlohmann::json& code = (*array)[i];
    // Integers only (is_number_integer excludes 79.5); signed and unsigned JSON both occur.
    if (!code.is_number_integer() || code.get<std::int64_t>() < 0 ||
        code.get<std::int64_t>() > 100000) {
      std::string field = reader.pathOf("xid_events", i);
      return common::invalidArgument(kInvalidResult, field + ": must be an XID code", field);
    }
    xids.push_back(static_cast<int>(code.get<std::int64_t>()));
  }
  return xids;
}

Result<std::vector<std::string>> parseThrottleReasons(const ObjectReader& reader) {
  PROV_ASSIGN(const nlohmann::json* array,
              reader.readArray("throttle_reasons", kMaxThrottleReasons, Need::kOptional));
  std::vector<std::string> reasons;
  if (array == nullptr) return reasons;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* text = (*array)[i].get_ptr<const std::string*>();
    if (text == nullptr || text->empty() || text->size() > 64) {
      std::string field = reader.pathOf("throttle_reasons", i);
      return common::invalidArgument(kInvalidResult, field + ": must be a short string", field);
    }
    reasons.push_back(*text);
  }
  return reasons;
}

Result<GpuHealth> parseHealth(const nlohmann::json& value, std::string path) {
  ObjectReader reader(value, std::move(path), kInvalidResult);
  PROV_TRY(reader.requireObject());
  GpuHealth h;
  PROV_TRY(reader.readString("gpu_serial", h.gpu_serial, Need::kRequired));
  PROV_TRY(reader.readUnsigned("ecc_corrected", h.ecc_corrected, Need::kOptional));
  PROV_TRY(reader.readUnsigned("ecc_uncorrected", h.ecc_uncorrected, Need::kOptional));
  PROV_ASSIGN(h.xid_events, parseXids(reader));
  PROV_TRY(reader.readInt("max_temperature_c", h.max_temperature_c, -60, 250, Need::kOptional));
  PROV_ASSIGN(h.throttle_reasons, parseThrottleReasons(reader));
  return h;
}

template <class T, class Parse>
Result<std::vector<T>> parseList(const ObjectReader& reader, std::string_view key,
                                 std::size_t max_items, Parse parse) {
  PROV_ASSIGN(const nlohmann::json* array, reader.readArray(key, max_items, Need::kOptional));
  std::vector<T> items;
  if (array == nullptr) return items;
  items.reserve(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    PROV_ASSIGN(auto item, parse((*array)[i], reader.pathOf(key, i)));
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace

nlohmann::json toJson(const TaskResult& result) {
  nlohmann::json measurements = nlohmann::json::array();
  for (const auto& m : result.measurements) measurements.push_back(toJson(m));
  nlohmann::json health = nlohmann::json::array();
  for (const auto& h : result.health) health.push_back(toJson(h));
  nlohmann::json out = {{"task_id", result.task_id},
                        {"measurements", std::move(measurements)},
                        {"health", std::move(health)},
                        {"error", result.error}};
  if (result.wipe) out["wipe"] = toJson(*result.wipe);
  return out;
}

Result<TaskResult> parseTaskResult(const nlohmann::json& object) {
  ObjectReader reader(object, "", kInvalidResult);
  PROV_TRY(reader.requireObject());
  TaskResult result;
  PROV_TRY(reader.readInt("task_id", result.task_id, 1, INT64_MAX, Need::kRequired));
  PROV_ASSIGN(result.measurements,
              parseList<Measurement>(reader, "measurements", kMaxMeasurements, parseMeasurement));
  PROV_ASSIGN(result.health, parseList<GpuHealth>(reader, "health", kMaxHealth, parseHealth));
  PROV_TRY(reader.readString("error", result.error, Need::kOptional));
  if (const nlohmann::json* wipe = reader.find("wipe")) {
    PROV_ASSIGN(result.wipe, wipe_json::parseReportAt(*wipe, reader.pathOf("wipe"), reader.code()));
  }
  return result;
}

}  // namespace agent
