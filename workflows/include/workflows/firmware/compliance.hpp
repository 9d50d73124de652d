// Compliance: per node and component of its model in its baseline, what is installed against
// what is accepted and targeted, as of when; `mixed` label groups (one scheduler partition or
// NVLink domain running different versions of a component); roll-ups per site, rack and model.
// Pure: the facts come in, the report goes out.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "workflows/firmware/baseline.hpp"
#include "workflows/firmware/component_rule.hpp"

namespace workflows::firmware {

// Worst first: a node's status is the worst of its components'.
enum class ComplianceStatus { kUnreachable, kBelow, kAbove, kUnknown, kCompliant };
inline constexpr ComplianceStatus kComplianceStatuses[] = {
    ComplianceStatus::kCompliant, ComplianceStatus::kBelow, ComplianceStatus::kAbove,
    ComplianceStatus::kUnknown, ComplianceStatus::kUnreachable};
std::string_view toString(ComplianceStatus status);

// What the inventory knows of one node's firmware.
struct NodeFirmwareFacts {
  std::int64_t node_id = 0;
  std::string chassis_serial, model, site, rack, state;
  std::map<std::string, std::string> labels;
  std::string baseline;                    // the baseline that applies; "" none
  std::optional<std::string> observed_at;  // the last successful FirmwareInventory read
  bool reachable = true;                   // false: the last attempt to read it failed
  std::string unreachable_reason;
  std::vector<FirmwareMember> members;  // as of observed_at
};

struct ComponentCompliance {
  std::string component;
  std::vector<std::string> installed;  // distinct versions of the matching members, in order
  int members = 0;                     // how many members the rule matched
  std::vector<std::string> accepted;
  std::optional<BaselineTarget> target;
  ComplianceStatus status = ComplianceStatus::kUnknown;
  bool mixed = false;  // its label group runs other versions of this component
};

// One component on one node. Unreachable when the last read failed (installed still shows the
// last known versions); unknown when never observed or no member matches; compliant when every
// matching member's version is accepted (the target version always is); otherwise below when a
// member is below the target (without a target: below the highest accepted), else above.
ComponentCompliance componentCompliance(const BaselineComponent& component,
                                        const NodeFirmwareFacts& node);

struct AppliedBaseline {
  const Baseline* baseline = nullptr;
  int revision = 0;
};

struct NodeCompliance {
  std::int64_t node_id = 0;
  std::string chassis_serial, model, site, rack, state;
  std::string baseline;
  int revision = 0;
  std::optional<std::string> observed_at;
  bool reachable = true;
  std::string unreachable_reason;
  ComplianceStatus status = ComplianceStatus::kCompliant;
  std::vector<ComponentCompliance> components;
};

NodeCompliance nodeCompliance(const NodeFirmwareFacts& node, const BaselineModel& model,
                              AppliedBaseline applied);

struct MixedGroup {
  std::string label, value, component;
  std::map<std::string, std::vector<std::int64_t>> versions;  // version -> node ids
};

struct Rollup {
  std::string site, rack, model;  // the group's key (the others empty)
  int nodes = 0;
  std::map<ComplianceStatus, int> node_statuses;
  std::map<ComplianceStatus, int> component_statuses;
};

struct NotCovered {
  std::int64_t node_id = 0;
  std::string reason;  // "no baseline", "model not in baseline NAME", "baseline NAME not found"
};

struct ComplianceReport {
  std::vector<NodeCompliance> nodes;
  std::vector<MixedGroup> mixed;
  std::vector<Rollup> by_site, by_rack, by_model;
  Rollup total;
  std::vector<NotCovered> not_covered;
};

// Groups of nodes sharing a value of one of `labels` whose installed versions of one component
// differ; marks the components involved as mixed.
std::vector<MixedGroup> findMixed(std::vector<NodeCompliance>& nodes,
                                  const std::vector<NodeFirmwareFacts>& facts,
                                  const std::vector<std::string>& labels);

inline const std::vector<std::string> kDefaultMixedLabels = {"partition", "nvlink_domain"};

// `baseline_named(name)`: the latest revision of that baseline, or nullopt when there is none.
ComplianceReport buildComplianceReport(
    const std::vector<NodeFirmwareFacts>& nodes,
    const std::function<std::optional<AppliedBaseline>(const std::string&)>& baseline_named,
    const std::vector<std::string>& mixed_labels = kDefaultMixedLabels);

nlohmann::json toJson(const ComplianceReport& report);
// One row per node and component, the header first.
std::vector<std::vector<std::string>> complianceCsvRows(const ComplianceReport& report);

}  // namespace workflows::firmware
