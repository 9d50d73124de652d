// Work for a node's resident agent while the node is in service
// (migrations/0020_resident_tasks.sql, docs/health.md "Actions"): a workflow run records the task
// first (its intent, once per run, GPU and kind), the agent is handed the node's open tasks in the
// answer to each health batch and reports each outcome once with its node credential.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/health/time.hpp"
#include "inventory/types.hpp"

namespace inventory {

inline constexpr const char* kResidentGpuReset = "gpu_reset";
// The short burn-in of a rerun_burn_in flag, on the drained node without a reboot: the task's
// spec_json is {"plan": <burn-in plan>, "expected_gpus": n}; the service judges the agent's result
// and keeps the verdict (verdict_json).
inline constexpr const char* kResidentBurnIn = "burn_in";

struct ResidentTask {
  Id id = 0;
  Id node_id = 0;
  std::string kind;        // kResidentGpuReset, kResidentBurnIn
  std::string gpu_serial;  // the GPU it is for (a burn-in runs on all the node's GPUs)
  std::optional<Id> flag_id;
  Id run_id = 0;
  std::string state;  // pending, delivered, succeeded, failed, cancelled
  std::string message;
  std::string created_at;  // ISO-8601 UTC; empty when not yet
  std::string delivered_at;
  std::string finished_at;
  std::string done_at;  // the agent's clock; finished_at when it sent none
  std::string spec_json = "{}";
  std::string verdict_json;  // a judged burn-in's verdict; empty otherwise

  bool open() const { return state == "pending" || state == "delivered"; }
};

struct ResidentTaskDraft {
  Id node_id = 0;
  std::string kind;
  std::string gpu_serial;
  std::optional<Id> flag_id;
  Id run_id = 0;
  std::string spec_json = "{}";
};

// The run's intent: the task of (run, kind, GPU), written now or found as an earlier attempt wrote
// it. InvalidArgument "invalid_kind".
common::Result<ResidentTask> queueResidentTask(Database& db, const ResidentTaskDraft& draft,
                                               health::Seconds now);

// The node's open tasks, oldest first; those still pending are marked delivered now.
common::Result<std::vector<ResidentTask>> deliverResidentTasks(Database& db, Id node_id,
                                                               health::Seconds now);

// The agent's report; `done_at`, when the agent finished on its own clock. NotFound
// "resident_task_not_found" (also for another node's task); Conflict "resident_task_finished" when
// it already finished with another state. The same report again (a retry after a lost answer)
// returns the task unchanged. `verdict_json`: the service's verdict on a burn-in's result.
common::Result<ResidentTask> finishResidentTask(
    Database& db, Id node_id, Id task_id, bool succeeded, const std::string& message,
    std::optional<health::Seconds> done_at, health::Seconds now,
    const std::optional<std::string>& verdict_json = std::nullopt);

// The run gave up on it (an operator decided the flag meanwhile): open -> cancelled. False when it
// had finished.
common::Result<bool> cancelResidentTask(Database& db, Id task_id, const std::string& message,
                                        health::Seconds now);

// NotFound "resident_task_not_found".
common::Result<ResidentTask> getResidentTask(Database& db, Id task_id);

// The node's tasks, newest first (the operators' view).
common::Result<std::vector<ResidentTask>> listResidentTasks(Database& db, Id node_id);

// The node's open burn-in, if any (a second flag of the node waits on it rather than burning the
// node in twice).
common::Result<std::optional<ResidentTask>> openBurnIn(Database& db, Id node_id);
// When the node's last judged burn-in finished (the service's clock); nullopt when never.
common::Result<std::optional<health::Seconds>> lastJudgedBurnIn(Database& db, Id node_id);

// What a reset's check reads: the GPU's last reading and whether it still reports a remap
// pending. NotFound "gpu_not_found" when it never reported.
struct GpuRemapState {
  std::optional<health::Seconds> last_sample;
  bool remap_pending = false;
};
common::Result<GpuRemapState> gpuRemapState(Database& db, const std::string& serial);

}  // namespace inventory
