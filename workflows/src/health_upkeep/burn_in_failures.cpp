// A failed resident burn-in -> a flag per GPU that failed it (pure): the verdict names the GPUs,
// which need not be the one whose flag asked for the burn-in.
#include <set>

#include "workflows/health_actions.hpp"

namespace workflows {

namespace h = inventory::health;

std::vector<h::FlagDraft> burnInFailureFlags(const nlohmann::json& verdict, inventory::Id node_id,
                                             inventory::Id task_id, h::Seconds at) {
  std::vector<h::FlagDraft> drafts;
  if (!verdict.is_object() || !verdict.contains("failures") || !verdict["failures"].is_array()) {
    return drafts;
  }
  std::set<std::string> flagged;
  for (const auto& failure : verdict["failures"]) {
    if (!failure.is_object()) continue;
    const std::string serial = failure.value("gpu_serial", "");
    if (serial.empty() || !flagged.insert(serial).second) continue;  // the first failure speaks
    h::FlagDraft d;
    d.serial = serial;
    d.rule = kBurnInRerunFailed;
    d.severity = h::FlagSeverity::kCritical;
    d.action = h::FlagAction::kRmaCandidate;
    d.reason = "failed the burn-in rerun (resident task " + std::to_string(task_id) +
               "): " + failure.value("message", failure.value("reason", "failed"));
    d.evidence_json = nlohmann::json{{"task_id", task_id},
                                     {"check", failure.value("check", "")},
                                     {"reason", failure.value("reason", "")},
                                     {"value", failure.value("value", nlohmann::json())}}
                          .dump();
    d.raised_at = at;
    d.node_id = node_id;
    drafts.push_back(std::move(d));
  }
  return drafts;
}

}  // namespace workflows
