// SQL of hardware profiles (per server model: channel, burn-in plan, BIOS, firmware, GPU model).
#pragma once

#include "db.hpp"

// Columns read by profileFromRow() (hardware_profiles.cpp).
#define INVENTORY_PROFILE_COLUMNS                                        \
  "name, model, channel, burn_in_plan::text, expected_gpus, updated_by," \
  " iso8601(updated_at), bios_settings::text, min_firmware::text, gpu_model, baseline"

namespace inventory::detail {

// Another profile with the same model breaks hardware_profiles_model_key.
constexpr Query kUpsertProfile{"upsert_profile",
                               "INSERT INTO hardware_profiles"
                               " (name, model, channel, burn_in_plan, expected_gpus, updated_by,"
                               " bios_settings, min_firmware, gpu_model, baseline)"
                               " VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7::jsonb, $8::jsonb, $9,"
                               " $10)"
                               " ON CONFLICT ON CONSTRAINT hardware_profiles_name_key DO UPDATE"
                               " SET model = EXCLUDED.model, channel = EXCLUDED.channel,"
                               " burn_in_plan = EXCLUDED.burn_in_plan,"
                               " expected_gpus = EXCLUDED.expected_gpus,"
                               " bios_settings = EXCLUDED.bios_settings,"
                               " min_firmware = EXCLUDED.min_firmware,"
                               " gpu_model = EXCLUDED.gpu_model, baseline = EXCLUDED.baseline,"
                               " updated_by = EXCLUDED.updated_by, updated_at = now()"
                               " RETURNING " INVENTORY_PROFILE_COLUMNS};
constexpr Query kSelectProfileByName{"select_profile_by_name",
                                     "SELECT " INVENTORY_PROFILE_COLUMNS
                                     " FROM hardware_profiles WHERE name = $1"};
constexpr Query kSelectProfileByModel{"select_profile_by_model",
                                      "SELECT " INVENTORY_PROFILE_COLUMNS
                                      " FROM hardware_profiles WHERE model = $1"};
constexpr Query kSelectProfiles{
    "select_profiles", "SELECT " INVENTORY_PROFILE_COLUMNS " FROM hardware_profiles ORDER BY name"};
constexpr Query kDeleteProfile{"delete_profile",
                               "DELETE FROM hardware_profiles WHERE name = $1 RETURNING id"};

}  // namespace inventory::detail
