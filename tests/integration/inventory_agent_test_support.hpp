// Helpers for the agent-side inventory tests: tasks in a given state, tokens from secrets,
// burn-in result rows, and reading a node's timeline.
#pragma once

#include <string>
#include <vector>

#include "common/secret_box.hpp"
#include "integration/inventory_test_support.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/nodes.hpp"

namespace agent_test {

using inventory::AgentTask;
using inventory::AgentTaskSpec;
using inventory::AgentTokenGrant;
using inventory::BurnInResultRecord;
using inventory::Database;
using inventory::Id;
using inventory::NodeEvent;

inline std::vector<std::string> eventKinds(Database& db, Id node_id) {
  auto d = inventory::getNodeDetail(db, node_id);
  REQUIRE_OK(d);
  std::vector<std::string> kinds;
  for (const auto& e : d->timeline) kinds.push_back(e.kind);
  return kinds;
}

inline NodeEvent lastEvent(Database& db, Id node_id) {
  auto d = inventory::getNodeDetail(db, node_id);
  REQUIRE_OK(d);
  REQUIRE_FALSE(d->timeline.empty());
  return d->timeline.back();
}

inline AgentTask makeTask(Database& db, Id node_id, const std::string& batch = "PO-7") {
  AgentTaskSpec spec;
  spec.node_id = node_id;
  spec.spec_json = R"({"tests":["gemm","hbm"]})";
  spec.batch = batch;
  spec.expected_gpus = 8;
  auto t = inventory::createAgentTask(db, spec, "workflow");
  REQUIRE_OK(t);
  return *t;
}

inline AgentTask runningTask(Database& db, Id node_id, const std::string& batch = "PO-7") {
  auto t = makeTask(db, node_id, batch);
  auto started = inventory::markTaskStarted(db, t.id);
  REQUIRE_OK(started);
  return *started;
}

inline std::string tokenHash(const std::string& secret) {
  return common::sha256Hex(secret);
}

inline void issue(Database& db, const AgentTask& task, const std::string& secret,
                  const std::string& kind, int ttl = 3600) {
  REQUIRE_OK(inventory::issueAgentToken(db, {task.node_id, task.id, kind, tokenHash(secret), ttl}));
}

inline std::string refusal(const common::Result<AgentTokenGrant>& r) {
  return r.ok() ? "granted" : r.error().code;
}

inline BurnInResultRecord result(const std::string& serial, const std::string& test, double value,
                                 bool passed = true) {
  BurnInResultRecord r;
  r.gpu_serial = serial;
  r.gpu_uuid = "GPU-uuid-" + serial;
  r.gpu_model = "H100 SXM";
  r.test = test;
  r.value = value;
  r.unit = "TFLOPS";
  r.nominal = 989.0;
  r.threshold = 840.65;
  r.passed = passed;
  r.reason = passed ? "" : "below 85% of nominal";
  return r;
}

}  // namespace agent_test
