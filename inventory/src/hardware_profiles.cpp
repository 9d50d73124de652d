// Hardware profiles: which channel and burn-in plan each server model gets.
#include "catalog_values.hpp"
#include "db.hpp"
#include "inventory/images.hpp"
#include "queries_profiles.hpp"

namespace inventory {
namespace {

using detail::Tx;

common::Result<void> validateProfile(const HardwareProfile& p) {
  if (!detail::isCatalogName(p.name)) {
    return common::invalidArgument("invalid_profile_name",
                                   "name must match [a-z0-9][a-z0-9._-]{0,63}", "name");
  }
  if (p.model.empty()) {
    return common::invalidArgument("missing_field", "model is required", "model");
  }
  if (!detail::isCatalogName(p.channel)) {
    return common::invalidArgument("invalid_channel_name",
                                   "channel must match [a-z0-9][a-z0-9._-]{0,63}", "channel");
  }
  if (!p.baseline.empty() && !detail::isCatalogName(p.baseline)) {
    return common::invalidArgument("invalid_baseline_name",
                                   "baseline must match [a-z0-9][a-z0-9._-]{0,63}", "baseline");
  }
  if (p.expected_gpus < 0) {
    return common::invalidArgument("invalid_expected_gpus", "expected_gpus must not be negative",
                                   "expected_gpus");
  }
  return common::success();
}

HardwareProfile profileFromRow(const pqxx::row& row) {
  HardwareProfile p;
  p.name = row[0].c_str();
  p.model = row[1].c_str();
  p.channel = row[2].c_str();
  p.burn_in_plan_json = row[3].c_str();
  p.expected_gpus = row[4].as<int>();
  p.updated_by = row[5].c_str();
  p.updated_at = row[6].c_str();
  p.bios_settings_json = row[7].c_str();
  p.min_firmware_json = row[8].c_str();
  p.gpu_model = row[9].c_str();
  p.baseline = row[10].c_str();
  return p;
}

std::string orDefault(const std::string& json, const char* empty_value) {
  return json.empty() ? empty_value : json;
}

common::Error profileNotFound(const std::string& name) {
  return common::notFound("profile_not_found", "no hardware profile named " + name);
}

}  // namespace

common::Result<HardwareProfile> upsertHardwareProfile(Database& db, const HardwareProfile& profile,
                                                      const std::string& actor) {
  PROV_TRY(validateProfile(profile));
  const std::string plan = orDefault(profile.burn_in_plan_json, "{}");
  const std::string bios = orDefault(profile.bios_settings_json, "{}");
  const std::string firmware = orDefault(profile.min_firmware_json, "[]");
  return detail::withTransaction(
      db, "upsert_hardware_profile", [&](Tx& tx) -> common::Result<HardwareProfile> {
        PROV_TRY(detail::requireJson(plan, "burn_in_plan"));
        PROV_TRY(detail::requireJson(bios, "bios_settings"));
        PROV_TRY(detail::requireJson(firmware, "min_firmware"));
        return profileFromRow(tx.exec(detail::kUpsertProfile, profile.name, profile.model,
                                      profile.channel, plan, profile.expected_gpus, actor, bios,
                                      firmware, profile.gpu_model, profile.baseline)[0]);
      });
}

common::Result<HardwareProfile> getHardwareProfile(Database& db, const std::string& name) {
  return detail::withRead(db, "get_hardware_profile",
                          [&](Tx& tx) -> common::Result<HardwareProfile> {
                            auto rows = tx.exec(detail::kSelectProfileByName, name);
                            if (rows.empty()) return profileNotFound(name);
                            return profileFromRow(rows[0]);
                          });
}

common::Result<std::vector<HardwareProfile>> listHardwareProfiles(Database& db) {
  return detail::withRead(db, "list_hardware_profiles",
                          [&](Tx& tx) -> common::Result<std::vector<HardwareProfile>> {
                            std::vector<HardwareProfile> profiles;
                            for (const auto& row : tx.exec(detail::kSelectProfiles)) {
                              profiles.push_back(profileFromRow(row));
                            }
                            return profiles;
                          });
}

// `actor` is for the caller's audit log: profiles keep no history of their own.
common::Result<void> deleteHardwareProfile(Database& db, const std::string& name,
                                           const std::string& /*actor*/) {
  return detail::withTransaction(db, "delete_hardware_profile",
                                 [&](Tx& tx) -> common::Result<void> {
                                   if (tx.exec(detail::kDeleteProfile, name).empty()) {
                                     return profileNotFound(name);
                                   }
                                   return common::success();
                                 });
}

common::Result<std::optional<HardwareProfile>> profileForModel(Database& db,
                                                               const std::string& model) {
  return detail::withRead(db, "profile_for_model",
                          [&](Tx& tx) -> common::Result<std::optional<HardwareProfile>> {
                            auto rows = tx.exec(detail::kSelectProfileByModel, model);
                            if (rows.empty()) return std::optional<HardwareProfile>();
                            return std::optional<HardwareProfile>(profileFromRow(rows[0]));
                          });
}

}  // namespace inventory
