// Per node and component: installed against accepted and target.
#include <algorithm>

#include "workflows/firmware/compliance.hpp"
#include "workflows/firmware/version_compare.hpp"

namespace workflows::firmware {
namespace {

bool accepted(const BaselineComponent& c, const std::string& version) {
  if (c.target && compareFirmwareVersions(version, c.target->version) == 0) return true;
  return std::any_of(c.accepted.begin(), c.accepted.end(), [&](const std::string& a) {
    return compareFirmwareVersions(version, a) == 0;
  });
}

// The version a non-accepted one is measured against: the target, else the highest accepted.
std::string reference(const BaselineComponent& c) {
  if (c.target) return c.target->version;
  std::string best;
  for (const auto& a : c.accepted) {
    if (best.empty() || compareFirmwareVersions(a, best) > 0) best = a;
  }
  return best;
}

std::vector<std::string> distinctVersions(const std::vector<FirmwareMember>& members) {
  std::vector<std::string> out;
  for (const auto& m : members) out.push_back(m.version);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    const int order = compareFirmwareVersions(a, b);
    return order != 0 ? order < 0 : a < b;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string_view toString(ComplianceStatus status) {
  switch (status) {
    case ComplianceStatus::kCompliant:
      return "compliant";
    case ComplianceStatus::kBelow:
      return "below";
    case ComplianceStatus::kAbove:
      return "above";
    case ComplianceStatus::kUnknown:
      return "unknown";
    case ComplianceStatus::kUnreachable:
      return "unreachable";
  }
  return "unknown";
}

ComponentCompliance componentCompliance(const BaselineComponent& component,
                                        const NodeFirmwareFacts& node) {
  ComponentCompliance out;
  out.component = component.name;
  out.accepted = component.accepted;
  out.target = component.target;
  const auto members = component.rule ? matchingMembers(*component.rule, node.members)
                                      : std::vector<FirmwareMember>();
  out.members = static_cast<int>(members.size());
  out.installed = distinctVersions(members);
  if (!node.reachable) {
    out.status = ComplianceStatus::kUnreachable;
  } else if (!node.observed_at || members.empty()) {
    out.status = ComplianceStatus::kUnknown;
  } else {
    out.status = ComplianceStatus::kCompliant;
    const std::string ref = reference(component);
    for (const auto& version : out.installed) {
      if (accepted(component, version)) continue;
      if (version.empty() || versionBelow(version, ref)) {
        out.status = ComplianceStatus::kBelow;
      } else if (out.status != ComplianceStatus::kBelow) {
        out.status = ComplianceStatus::kAbove;
      }
    }
  }
  return out;
}

NodeCompliance nodeCompliance(const NodeFirmwareFacts& node, const BaselineModel& model,
                              AppliedBaseline applied) {
  NodeCompliance out;
  out.node_id = node.node_id;
  out.chassis_serial = node.chassis_serial;
  out.model = node.model;
  out.site = node.site;
  out.rack = node.rack;
  out.state = node.state;
  out.baseline = applied.baseline ? applied.baseline->name : node.baseline;
  out.revision = applied.revision;
  out.observed_at = node.observed_at;
  out.reachable = node.reachable;
  out.unreachable_reason = node.unreachable_reason;
  for (const auto& c : model.components) {
    out.components.push_back(componentCompliance(c, node));
    out.status = std::min(out.status, out.components.back().status);  // worst first
  }
  return out;
}

}  // namespace workflows::firmware
