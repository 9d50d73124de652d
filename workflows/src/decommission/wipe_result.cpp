#include "workflows/decommission/wipe_result.hpp"

#include "inventory/decommissions.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

common::Result<inventory::Decommission> runningDecommission(inventory::Database& db,
                                                            inventory::Id node_id) {
  PROV_ASSIGN(auto list, inventory::listDecommissions(db, node_id, 1));
  if (list.empty() || list.front().state != "running") {
    return common::fail(common::conflict(
        "no_decommission", "node " + std::to_string(node_id) + " has no running decommission"));
  }
  return list.front();
}

json failuresJson(const std::vector<DeviceFailure>& failures) {
  json out = json::array();
  for (const auto& f : failures) out.push_back({{"serial", f.serial}, {"what", f.what}});
  return out;
}

WipeTaskOutcome judged(const agent::TaskResult& result, const WipeJudgement& judgement) {
  WipeTaskOutcome out;
  if (!result.error.empty()) {
    out.state = "error";
    out.summary = "wipe did not run: " + result.error;
    out.verdict = {{"failures", json::array({{{"serial", ""}, {"what", result.error}}})},
                   {"error", result.error},
                   {"devices", 0}};
    return out;
  }
  out.state = judgement.passed() ? "passed" : "failed";
  out.summary = judgement.passed()
                    ? "wipe passed: " + std::to_string(judgement.devices.size()) + " device(s)"
                    : "wipe failed: " + describeFailures(judgement.failures);
  out.verdict = {{"failures", failuresJson(judgement.failures)},
                 {"devices", judgement.devices.size()}};
  return out;
}

}  // namespace

std::string wipeReportEvidenceName(inventory::Id task_id) {
  return "agent_wipe_report_task_" + std::to_string(task_id);
}

common::Result<WipeTaskOutcome> recordWipeResult(inventory::Database& db,
                                                 const inventory::AgentTask& task,
                                                 const agent::TaskResult& result,
                                                 const std::string& raw_body, WipeCriteria criteria,
                                                 TimePoint at) {
  if (result.error.empty() && !result.wipe) {
    return common::fail(common::invalidArgument(
        "invalid_result", "a wipe task's result carries no wipe report", "wipe"));
  }
  if (criteria.expected_gpus == 0) criteria.expected_gpus = task.expected_gpus;
  PROV_ASSIGN(auto decommission, runningDecommission(db, task.node_id));
  const std::string evidence = wipeReportEvidenceName(task.id);
  PROV_TRY(inventory::recordEvidence(db, decommission.id, evidence, raw_body, at));
  const WipeJudgement judgement =
      result.wipe ? judgeWipeReport(*result.wipe, criteria) : WipeJudgement{};
  WipeTaskOutcome out = judged(result, judgement);
  out.decommission_id = decommission.id;
  out.verdict["evidence"] = evidence;
  if (!judgement.devices.empty()) {
    PROV_TRY(inventory::recordDeviceSanitizations(db, decommission.id, judgement.devices));
  }
  PROV_TRY(inventory::finishAgentTask(db, task.id, out.state, {}, out.verdict.dump(), out.summary));
  return out;
}

}  // namespace workflows::decommission
