// The one rule that says which Redfish FirmwareInventory members are a component ("bmc", "gpu"):
// {"software_id": "..."} matches the member's SoftwareId exactly; {"pattern": "..."} is a
// case-insensitive substring of the member's Id or Name. Used by packages, baselines, compliance
// and the firmware step alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"

namespace workflows::firmware {

// One FirmwareInventory member as a BMC reports it.
struct FirmwareMember {
  std::string path;  // @odata.id: what SimpleUpdate's Targets name
  std::string id, name, software_id, version;
  bool updateable = true;  // false only when the BMC says so
};

// Exactly one of the two is set.
struct ComponentRule {
  std::string software_id;
  std::string pattern;

  bool operator==(const ComponentRule&) const = default;
};

// {"software_id": "..."} or {"pattern": "..."}, a non-empty string of at most 256 characters and
// nothing else. InvalidArgument "invalid_component_rule" naming `field` (or "<field>.pattern").
common::Result<ComponentRule> parseComponentRule(const nlohmann::json& value,
                                                 const std::string& field);
nlohmann::json toJson(const ComponentRule& rule);
// "software_id=..." or "pattern=..." for messages.
std::string describe(const ComponentRule& rule);

bool matches(const ComponentRule& rule, const FirmwareMember& member);
// The members the rule matches, in their order.
std::vector<FirmwareMember> matchingMembers(const ComponentRule& rule,
                                            const std::vector<FirmwareMember>& members);

// Component names: ^[a-z][a-z0-9_-]{0,31}$ ("bmc", "gpu", "bios", "nvswitch", "nic", "retimer").
bool isComponentName(std::string_view name);

}  // namespace workflows::firmware
