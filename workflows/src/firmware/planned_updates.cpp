#include "workflows/firmware/planned_updates.hpp"

namespace workflows::firmware {
namespace {

std::string joined(const std::vector<std::string>& versions) {
  std::string out;
  for (const auto& v : versions) out += (out.empty() ? "" : ", ") + v;
  return out;
}

bool needsUpdate(const ComponentCompliance& c, const NodeFirmwareFacts& node) {
  switch (c.status) {
    case ComplianceStatus::kBelow:
    case ComplianceStatus::kAbove:
      return true;
    case ComplianceStatus::kUnknown:
      return !node.observed_at;  // read and no member matched: not on this node
    case ComplianceStatus::kUnreachable:
      return true;  // never read successfully: the node run reads it before it flashes
    case ComplianceStatus::kCompliant:
      return false;
  }
  return false;
}

}  // namespace

std::vector<PlannedUpdate> plannedUpdates(const BaselineModel& model,
                                          const NodeFirmwareFacts& node) {
  // An unreachable node is judged on its last known versions, as if they were read just now.
  NodeFirmwareFacts judged = node;
  if (!judged.reachable && judged.observed_at) judged.reachable = true;
  std::vector<PlannedUpdate> out;
  for (const auto& component : model.components) {
    if (!component.target) continue;
    const auto c = componentCompliance(component, judged);
    if (!needsUpdate(c, judged)) continue;
    out.push_back({component.name, c.installed.empty() ? "unknown" : joined(c.installed),
                   component.target->version, component.target->package});
  }
  return out;
}

}  // namespace workflows::firmware
