// What the boot service and the agent need from the inventory: the MACs a node network-boots
// with, agent tasks (a burn-in now, a wipe later), node-scoped agent tokens, and burn-in results
// per GPU serial with history.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

// Boot MACs ----------------------------------------------------------------------------------

// Records host NIC MACs of a node (normalised aa:bb:cc:dd:ee:ff). A MAC already on this node is
// kept; on another node it is Conflict "boot_mac_in_use" (field "macs[i]"). `source`: "operator",
// "redfish", "agent".
common::Result<void> addBootMacs(Database& db, Id node_id, const std::vector<std::string>& macs,
                                 const std::string& source);
common::Result<std::vector<std::string>> listBootMacs(Database& db, Id node_id);
// The node that boots with this MAC (also matching the node's BMC MAC is NOT done: a BMC never
// PXE-boots); nullopt when unknown.
common::Result<std::optional<Id>> nodeForBootMac(Database& db, const std::string& mac);

// Agent tasks --------------------------------------------------------------------------------

// pending -> running (the agent fetched it) -> passed | failed | error; or cancelled.
struct AgentTask {
  Id id = 0;
  Id node_id = 0;
  std::string kind;  // "burn_in" or "wipe"
  std::string state;
  std::string spec_json = "{}";  // the burn-in plan, frozen when the task was created
  std::string batch;             // burn-in batch: peers for the outlier check
  int expected_gpus = 0;
  std::string facts_json;     // the agent's in-band facts, once it registered
  std::string progress_json;  // the latest progress report
  std::string verdict_json;   // once finished
  std::string created_by;
  Timestamp created_at;
  std::optional<Timestamp> registered_at;
  std::optional<Timestamp> started_at;
  std::optional<Timestamp> finished_at;
};

struct AgentTaskSpec {
  Id node_id = 0;
  std::string kind = "burn_in";
  std::string spec_json = "{}";
  std::string batch;
  int expected_gpus = 0;
};

// The burn-in batch of a task when nobody names one: the node's rack on that UTC day
// ("<site>/<rack>@2026-12-02", "unracked@2026-12-02"), so the peers for the outlier check are the
// GPUs burned in beside it. Shared by the API's burn-in route and the lifecycle's imaging step.
std::string defaultBurnInBatch(const Node& node, std::chrono::system_clock::time_point at);

// One open task (pending or running) per node: Conflict "task_already_open". NotFound
// "node_not_found". Appends a "task_created" node event.
common::Result<AgentTask> createAgentTask(Database& db, const AgentTaskSpec& spec,
                                          const std::string& actor);
common::Result<AgentTask> getAgentTask(Database& db, Id task_id);
// The node's pending or running task; nullopt when the node is not due to boot.
common::Result<std::optional<AgentTask>> openTaskForNode(Database& db, Id node_id);
common::Result<std::vector<AgentTask>> listTasksForNode(Database& db, Id node_id);
// Stores the facts and the registration time; MACs of the facts become boot MACs ("agent"). A
// reported MAC that already boots another node is left there and named in a "boot_mac_conflict"
// node event; the registration still succeeds.
common::Result<AgentTask> recordRegistration(Database& db, Id task_id,
                                             const std::string& facts_json,
                                             const std::vector<std::string>& nic_macs);
// pending -> running (idempotent when already running). Conflict "task_not_open" otherwise.
common::Result<AgentTask> markTaskStarted(Database& db, Id task_id);
common::Result<void> recordProgress(Database& db, Id task_id, const std::string& progress_json);
// Cancels an open task and revokes its tokens. Conflict "task_not_open".
common::Result<AgentTask> cancelAgentTask(Database& db, Id task_id, const std::string& actor,
                                          const std::string& reason);

// Agent tokens -------------------------------------------------------------------------------

struct AgentTokenSpec {
  Id node_id = 0;
  Id task_id = 0;
  std::string kind;        // "boot" (one registration) or "session" (the task's calls)
  std::string token_hash;  // SHA-256 hex; the secret itself is never stored
  int ttl_seconds = 3600;  // 0 or less: already expired (tests)
};

// Issuing a boot token revokes the node's earlier boot tokens that were never used (the node
// rebooted into a new script).
common::Result<void> issueAgentToken(Database& db, const AgentTokenSpec& spec);

struct AgentTokenGrant {
  Id node_id = 0;
  Id task_id = 0;
};

// Checks a presented token for a call about `node_id`. Errors: Unauthenticated with code
// "agent_token_unknown", "agent_token_expired", "agent_token_used" (a boot token presented
// twice), "agent_token_revoked", or "agent_token_wrong_kind"; PermissionDenied
// "agent_token_wrong_node" when the token belongs to another node. With consume = true (boot
// tokens) the token is marked used in the same statement, so two racing uses cannot both pass.
// `used_by` (the SHA-256 hex of the caller's registration key, or ""): a consumed token is
// granted again to the same key (a retried registration), never to another or to none.
common::Result<AgentTokenGrant> checkAgentToken(Database& db, const std::string& token_hash,
                                                Id node_id, const std::string& kind, bool consume,
                                                const std::string& used_by = "");
// Revokes every token of the task (it finished or was cancelled).
common::Result<void> revokeTaskTokens(Database& db, Id task_id);

// Burn-in results ----------------------------------------------------------------------------

struct BurnInResultRecord {
  Id id = 0;
  Id task_id = 0;
  Id node_id = 0;
  std::string batch;
  std::string gpu_serial;
  std::string gpu_uuid;
  std::string gpu_model;
  std::string test;
  double value = 0;
  std::string unit;
  std::optional<double> nominal;
  double threshold = 0;
  std::optional<double> batch_median;
  std::optional<double> robust_z;
  bool passed = true;
  std::string reason;
  Timestamp measured_at;
};

// The values of other tasks' results in the batch for this model and test, for the outlier check
// (this task's own values are excluded: the caller adds them).
common::Result<std::vector<double>> batchPeerValues(Database& db, const std::string& batch,
                                                    const std::string& gpu_model,
                                                    const std::string& test, Id exclude_task_id);

// Finishes a running task in one transaction: stores every result row, the verdict JSON, the new
// state ("passed" / "failed" / "error"), revokes the task's unused boot tokens (the session token
// stays valid until it expires, so a retried result gets "task_not_open") and appends a
// "burn_in_passed" / "burn_in_failed" / "task_error" node event carrying `summary`.
// Conflict "task_not_open" when the task is not running (results are accepted once).
common::Result<AgentTask> finishAgentTask(Database& db, Id task_id, const std::string& state,
                                          const std::vector<BurnInResultRecord>& results,
                                          const std::string& verdict_json,
                                          const std::string& summary);

// History of one GPU serial across tasks, newest first. NotFound "gpu_not_found" when the serial
// has no results.
common::Result<std::vector<BurnInResultRecord>> gpuBurnInHistory(Database& db,
                                                                 const std::string& gpu_serial);
common::Result<std::vector<BurnInResultRecord>> taskResults(Database& db, Id task_id);

}  // namespace inventory
