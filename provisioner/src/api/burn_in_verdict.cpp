#include "burn_in_verdict.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "agent/nominal.hpp"

namespace provisioner::api {
namespace {

using common::Result;

// Stored documents were validated when written; a damaged one is an internal error.
template <class T, class Parse>
Result<T> reparse(const std::string& text, Parse parse, const char* what) {
  auto doc = nlohmann::json::parse(text.empty() ? "{}" : text, nullptr, false);
  if (doc.is_discarded())
    return common::fail(common::internalError(std::string("stored ") + what + " is not JSON"));
  return parse(doc);
}

Result<agent::PeerValues> peersOf(inventory::Database& db, const inventory::AgentTask& task,
                                  const agent::TaskResult& result) {
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& m : result.measurements) keys.emplace(m.gpu_model, m.test);
  agent::PeerValues peers;
  for (const auto& [model, test] : keys) {
    PROV_ASSIGN(auto values, inventory::batchPeerValues(db, task.batch, model, test, task.id));
    peers[{model, test}] = std::move(values);
  }
  return peers;
}

std::optional<double> nominalOf(const std::string& model, const std::string& test) {
  auto figures = agent::nominalFor(model);
  if (!figures) return std::nullopt;
  return agent::nominalValue(*figures, test);
}

inventory::BurnInResultRecord recordOf(const inventory::AgentTask& task,
                                       const agent::Evaluation& e) {
  inventory::BurnInResultRecord r;
  r.task_id = task.id;
  r.node_id = task.node_id;
  r.batch = task.batch;
  r.gpu_serial = e.measurement.gpu_serial;
  r.gpu_uuid = e.measurement.gpu_uuid;
  r.gpu_model = e.measurement.gpu_model;
  r.test = e.measurement.test;
  r.value = e.measurement.value;
  r.unit = e.measurement.unit;
  r.nominal = e.nominal;
  r.threshold = e.threshold;
  r.batch_median = e.batch_median;
  r.robust_z = e.robust_z;
  r.passed = e.passed;
  r.reason = e.reason;
  return r;
}

std::string summaryOf(const agent::Verdict& verdict, const agent::TaskResult& result) {
  if (!result.error.empty()) return "the agent could not run the task: " + result.error;
  if (verdict.passed) {
    return "burn-in passed: " + std::to_string(verdict.evaluations.size()) + " measurements";
  }
  std::string text = std::to_string(verdict.failures.size()) + " failure(s): ";
  text += verdict.failures.front().message;
  return text;
}

// The verdict, its state and its summary (the records are the caller's).
TaskVerdict judged(const agent::BurnInPlan& plan, const agent::Facts& facts,
                   const agent::TaskResult& result, const agent::PeerValues& peers,
                   int expected_gpus) {
  agent::VerdictInput input;
  input.plan = &plan;
  input.facts = &facts;
  input.result = &result;
  input.peers = &peers;
  input.expected_gpus = expected_gpus;
  input.nominal_of = nominalOf;
  TaskVerdict out;
  out.verdict = agent::evaluate(input);
  out.state = !result.error.empty() ? "error" : (out.verdict.passed ? "passed" : "failed");
  out.summary = summaryOf(out.verdict, result);
  return out;
}

}  // namespace

Result<TaskVerdict> judgeResidentBurnIn(const std::string& spec_json, const agent::Facts& facts,
                                        const agent::TaskResult& result) {
  auto spec = nlohmann::json::parse(spec_json.empty() ? "{}" : spec_json, nullptr, false);
  if (!spec.is_object() || !spec.contains("plan")) {
    return common::fail(common::internalError("the resident burn-in's stored spec has no plan"));
  }
  PROV_ASSIGN(auto plan, agent::parseBurnInPlan(spec["plan"]));
  const auto expected = spec.value("expected_gpus", 0);
  return judged(plan, facts, result, agent::PeerValues{}, expected);
}

Result<TaskVerdict> judgeTask(inventory::Database& db, const inventory::AgentTask& task,
                              const agent::TaskResult& result) {
  PROV_ASSIGN(auto plan,
              reparse<agent::BurnInPlan>(
                  task.spec_json, [](const nlohmann::json& j) { return agent::parseBurnInPlan(j); },
                  "plan"));
  PROV_ASSIGN(
      auto facts,
      reparse<agent::Facts>(
          task.facts_json, [](const nlohmann::json& j) { return agent::parseFacts(j); }, "facts"));
  PROV_ASSIGN(auto peers, peersOf(db, task, result));
  TaskVerdict out = judged(plan, facts, result, peers, task.expected_gpus);
  for (const auto& e : out.verdict.evaluations) out.records.push_back(recordOf(task, e));
  return out;
}

}  // namespace provisioner::api
