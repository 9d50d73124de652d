#include "wipe_plan.hpp"

#include "redfish/json.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

json driveJson(const PlannedDrive& p) {
  const auto& d = p.drive;
  return {{"odata_id", d.odataId},
          {"serial", d.serialNumber},
          {"model", d.model},
          {"manufacturer", d.manufacturer},
          {"media_type", d.mediaType},
          {"protocol", d.protocol},
          {"capacity_bytes", d.capacityBytes ? json(*d.capacityBytes) : json(nullptr)},
          {"secure_erase_offered", d.secureEraseOffered},
          {"sanitization_types", d.sanitizationTypes},
          {"type", p.choice.type ? json(*p.choice.type) : json(nullptr)},
          {"nist_level", p.choice.nistLevel},
          {"reason", p.why}};
}

std::string text(const json& object, const char* key) {
  return redfish::stringAt(object, key).value_or("");
}

PlannedDrive driveFrom(const json& j, bool out_of_band) {
  PlannedDrive p;
  p.out_of_band = out_of_band;
  p.drive.odataId = text(j, "odata_id");
  p.drive.serialNumber = text(j, "serial");
  p.drive.model = text(j, "model");
  p.drive.manufacturer = text(j, "manufacturer");
  p.drive.mediaType = text(j, "media_type");
  p.drive.protocol = text(j, "protocol");
  p.drive.capacityBytes = redfish::intAt(j, "capacity_bytes");
  p.drive.secureEraseOffered = redfish::boolAt(j, "secure_erase_offered").value_or(false);
  if (const json* types = redfish::member(j, "sanitization_types"); types && types->is_array()) {
    for (const json& t : *types) {
      if (t.is_string()) p.drive.sanitizationTypes.push_back(t.get<std::string>());
    }
  }
  p.choice.type = redfish::stringAt(j, "type");
  p.choice.nistLevel = text(j, "nist_level");
  p.why = text(j, "reason");
  return p;
}

}  // namespace

std::vector<PlannedDrive> planDrives(const std::vector<redfish::DriveInfo>& drives) {
  std::vector<PlannedDrive> plan;
  for (const auto& drive : drives) {
    PlannedDrive p;
    p.drive = drive;
    if (!drive.secureEraseOffered) {
      p.why = "the BMC offers no Drive.SecureErase: erased in band by the agent";
    } else if (drive.serialNumber.empty()) {
      p.why = "the BMC names no serial (the agent could not skip it): erased in band";
    } else {
      p.out_of_band = true;
      p.choice = redfish::chooseSanitization(drive);
      p.why = "Drive.SecureErase by the BMC: " + p.choice.reason;
    }
    plan.push_back(std::move(p));
  }
  return plan;
}

json planJson(const std::vector<PlannedDrive>& plan) {
  json oob = json::array(), in_band = json::array();
  for (const auto& p : plan) (p.out_of_band ? oob : in_band).push_back(driveJson(p));
  return {{"oob", oob}, {"in_band", in_band}};
}

std::vector<PlannedDrive> planFromJson(const json& plan) {
  std::vector<PlannedDrive> out;
  for (const char* key : {"oob", "in_band"}) {
    const json* list = redfish::member(plan, key);
    if (list == nullptr || !list->is_array()) continue;
    for (const json& j : *list) out.push_back(driveFrom(j, std::string(key) == "oob"));
  }
  return out;
}

agent::WipePlan agentPlan(const std::vector<PlannedDrive>& plan, std::int64_t seed,
                          double drive_sample_coverage) {
  agent::WipePlan wipe;
  wipe.seed = static_cast<std::uint64_t>(seed);
  wipe.drive_sample_coverage = drive_sample_coverage;
  for (const auto& p : plan) {
    if (p.out_of_band) wipe.skip_drive_serials.push_back(p.drive.serialNumber);
  }
  return wipe;
}

}  // namespace workflows::decommission
