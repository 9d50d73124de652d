#include "firmware_record.hpp"

#include <set>

#include "host_control.hpp"

namespace workflows::lifecycle {

std::vector<inventory::FirmwareObservation> observationsOf(const redfish::Inventory& inv) {
  std::vector<inventory::FirmwareObservation> out;
  std::set<std::string> paths;
  for (const auto& f : inv.firmware) {
    const std::string path = f.odataId.empty() ? f.id : f.odataId;
    if (path.empty() || !paths.insert(path).second) continue;
    out.push_back({path, f.id, f.name, f.softwareId, f.version, f.updateable});
  }
  return out;
}

std::vector<inventory::FirmwareObservation> observationsOf(
    const std::vector<firmware::FirmwareMember>& members) {
  std::vector<inventory::FirmwareObservation> out;
  std::set<std::string> paths;
  for (const auto& m : members) {
    const std::string path = m.path.empty() ? m.id : m.path;
    if (path.empty() || !paths.insert(path).second) continue;
    out.push_back({path, m.id, m.name, m.software_id, m.version, m.updateable});
  }
  return out;
}

void recordObserved(const Env& env, StepContext& ctx, inventory::Id node_id,
                    const std::vector<inventory::FirmwareObservation>& members) {
  auto recorded =
      inventory::recordNodeFirmware(*env.deps.db, node_id, members, isoTime(ctx.current()));
  if (!recorded) {
    ctx.event("firmware_record_failed", recorded.error().message,
              {{"code", recorded.error().code}});
  }
}

void recordUnreachable(const Env& env, StepContext& ctx, inventory::Id node_id,
                       const std::string& reason) {
  auto marked =
      inventory::markNodeFirmwareUnreachable(*env.deps.db, node_id, isoTime(ctx.current()), reason);
  if (!marked) {
    ctx.event("firmware_record_failed", marked.error().message, {{"code", marked.error().code}});
  }
}

}  // namespace workflows::lifecycle
