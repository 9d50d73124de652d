// The wipe plan on the wire.
#include <nlohmann/json.hpp>

#include "agent/wipe.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/wipe_json.hpp"

namespace agent {

using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;

namespace {

constexpr std::size_t kMaxSkippedDrives = 256;

Result<std::vector<std::string>> parseSerials(const ObjectReader& reader) {
  PROV_ASSIGN(const nlohmann::json* array,
              reader.readArray("skip_drive_serials", kMaxSkippedDrives, Need::kOptional));
  std::vector<std::string> serials;
  if (array == nullptr) return serials;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const auto* text = (*array)[i].get_ptr<const std::string*>();
    if (text == nullptr || text->empty() || text->size() > json_fields::kMaxStringLength) {
      std::string field = reader.pathOf("skip_drive_serials", i);
      return common::invalidArgument(reader.code(), field + ": must be a drive serial", field);
    }
    serials.push_back(*text);
  }
  return serials;
}

}  // namespace

namespace wipe_json {

Result<WipePlan> parsePlanAt(const nlohmann::json& object, std::string path, std::string code) {
  ObjectReader reader(object, std::move(path), std::move(code));
  PROV_TRY(reader.requireObject());
  WipePlan plan;
  PROV_TRY(reader.readUnsigned("seed", plan.seed, Need::kRequired));
  std::uint64_t pattern = plan.pattern;
  PROV_TRY(reader.readUnsigned("pattern", pattern, Need::kOptional, UINT32_MAX));
  plan.pattern = static_cast<std::uint32_t>(pattern);
  PROV_TRY(reader.readBool("reset_gpus", plan.reset_gpus, Need::kOptional));
  PROV_TRY(reader.readDouble("drive_sample_coverage", plan.drive_sample_coverage, 0, 1,
                             Need::kOptional));
  if (plan.drive_sample_coverage <= 0) {
    return reader.error("drive_sample_coverage", "must be a fraction in (0, 1]");
  }
  PROV_ASSIGN(plan.skip_drive_serials, parseSerials(reader));
  return plan;
}

}  // namespace wipe_json

Result<WipePlan> parseWipePlan(const nlohmann::json& object) {
  return wipe_json::parsePlanAt(object, "", "invalid_wipe_plan");
}

nlohmann::json toJson(const WipePlan& plan) {
  return {{"seed", plan.seed},
          {"pattern", plan.pattern},
          {"reset_gpus", plan.reset_gpus},
          {"drive_sample_coverage", plan.drive_sample_coverage},
          {"skip_drive_serials", plan.skip_drive_serials}};
}

}  // namespace agent
