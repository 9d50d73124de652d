// BIOS attributes: read current and pending values, validate a desired set against the attribute
// registry, PATCH only the difference to the settings object, confirm after the reset.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"
#include "redfish/tasks.hpp"

namespace redfish {

struct BiosInfo {
  std::string biosPath;
  std::string etag;
  nlohmann::json attributes = nlohmann::json::object();  // current values
  std::string registryName;                              // Bios.AttributeRegistry
  std::string settingsPath;  // @Redfish.Settings.SettingsObject; empty: PATCH the Bios itself
  std::vector<std::string> supportedApplyTimes;  // @Redfish.Settings.SupportedApplyTimes
  std::string resetBiosTarget;                   // Actions #Bios.ResetBios target
};

struct BiosAttributeDef {
  std::string name;
  std::string type;  // Enumeration, String, Integer, Boolean, Password
  bool readOnly = false;
  std::vector<std::string> allowedValues;  // Enumeration: Value[].ValueName
  std::optional<std::int64_t> lowerBound, upperBound;
};

struct BiosRegistry {
  std::string uri;
  std::map<std::string, BiosAttributeDef> attributes;
};

common::Result<BiosInfo> readBios(Client& client, const std::string& systemPath);

// Bios.AttributeRegistry -> /redfish/v1/Registries member -> Location[].Uri (English first);
// the registry may live outside /redfish/v1 (Supermicro /registries/...).
common::Result<BiosRegistry> readBiosRegistry(Client& client, const BiosInfo& bios);
BiosRegistry parseBiosRegistry(const nlohmann::json& registry);

// Every desired attribute checked; the first problem is the error (unknown, read-only, wrong
// type, value not allowed, out of bounds).
common::Result<void> validateBiosAttributes(const BiosRegistry& registry,
                                            const nlohmann::json& desired);

// The desired attributes whose value differs from the current one.
nlohmann::json biosDiff(const nlohmann::json& current, const nlohmann::json& desired);

struct BiosApplyResult {
  nlohmann::json patched = nlohmann::json::object();  // empty: nothing to change
  std::optional<TaskRef> job;                         // Dell config job, a task, when created
};

// Reads, validates (when `registry` is given), diffs and PATCHes the difference to the settings
// object with If-Match and @Redfish.SettingsApplyTime OnReset when supported.
common::Result<BiosApplyResult> applyBiosSettings(Client& client, const std::string& systemPath,
                                                  const nlohmann::json& desired,
                                                  const Quirks& quirks = {},
                                                  const BiosRegistry* registry = nullptr);

// The pending values (GET of the settings object).
common::Result<nlohmann::json> readPendingBios(Client& client, const BiosInfo& bios);

// After the reset: the names of desired attributes whose current value still differs.
common::Result<std::vector<std::string>> biosNotApplied(Client& client,
                                                        const std::string& systemPath,
                                                        const nlohmann::json& desired);

// Actions #Bios.ResetBios: back to defaults (applied on the next reset).
common::Result<void> resetBiosToDefaults(Client& client, const std::string& systemPath);

}  // namespace redfish
