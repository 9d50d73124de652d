// GPU health flags in PostgreSQL (docs/health.md, "Flags"): the rules' drafts raised as flags,
// one open flag per GPU and rule, acknowledged and cleared by operators with who and when, each
// step also a GPU health event (flag_raised, flag_acknowledged, flag_cleared). The evidence the
// rules evaluate is read here too (all SQL lives in inventory/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/health/flag.hpp"
#include "inventory/health/rules.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct GpuFlag {
  Id id = 0;
  std::string serial;
  std::string rule;
  std::string severity;  // health::FlagSeverity's name
  std::string action;    // health::FlagAction's name
  std::string state;     // open, acknowledged, cleared
  std::string reason;
  std::string evidence_json;
  std::optional<Id> node_id;  // where the GPU was when the flag was raised
  std::string evidence_at;
  std::string raised_at;
  std::string acknowledged_at;  // empty: not acknowledged
  std::string acknowledged_by;
  std::string acknowledge_note;
  std::string cleared_at;  // empty: not cleared
  std::string cleared_by;
  std::string clear_note;
  std::string action_at;  // empty: no action started
  std::optional<Id> action_run_id;
  std::string released_at;  // empty: the node is not (yet) given back for this flag
};

struct FlagRaiseResult {
  std::vector<GpuFlag> raised;  // new flags
  int already_open = 0;         // a flag of that GPU and rule was open or acknowledged
  int suppressed = 0;           // cleared by an operator after the draft's evidence was seen
};

// Raises each draft in one transaction, unless the GPU already has an open (or acknowledged)
// flag of that rule, or an operator cleared one of that rule at or after the draft's evidence
// time (the evidence they dismissed). Each new flag writes a flag_raised event at `now`, with
// the draft's node, else the node of the GPU's counter state. Invalid drafts (empty serial, rule or
// reason, evidence not a JSON object) are refused whole (invalid_argument).
common::Result<FlagRaiseResult> raiseFlags(Database& db,
                                           const std::vector<health::FlagDraft>& drafts,
                                           health::Seconds now);

// open -> acknowledged. not_found for an unknown id; conflict "flag_not_open" otherwise.
// `who` (the operator) must not be empty.
common::Result<GpuFlag> acknowledgeFlag(Database& db, Id flag_id, const std::string& who,
                                        const std::string& note, health::Seconds now);
// open or acknowledged -> cleared; conflict "flag_cleared" when already cleared.
common::Result<GpuFlag> clearFlag(Database& db, Id flag_id, const std::string& who,
                                  const std::string& note, health::Seconds now);

// Records that the flag's action was started (a drain run), once, and only while the flag is
// open (an operator who acknowledged or cleared it decided): false when it already was started
// or the flag is not open. Writes a flag_action_started event (note "run <id>").
common::Result<bool> markFlagActionStarted(Database& db, Id flag_id, std::optional<Id> run_id,
                                           health::Seconds now);

// A GPU health event about the flag's action: "flag_drained" (the scheduler has the node
// drained) or "rma_candidate" (the GPU is a candidate for RMA; no disposition is recorded, that
// needs the vendor's ticket). invalid_argument for another kind, not_found for an unknown flag.
common::Result<void> recordFlagActionEvent(Database& db, Id flag_id, const std::string& kind,
                                           const std::string& note, health::Seconds now);

// Cleared flags whose drain started and whose hold on the node is not released yet (at most
// 1,000, oldest first).
common::Result<std::vector<GpuFlag>> listFlagsToRelease(Database& db);
// The ids of the other flags that hold `node_id` drained (drain or rma_candidate started, not
// cleared), `except` left out.
common::Result<std::vector<Id>> flagsHoldingNode(Database& db, Id node_id, Id except);
// Records that the flag's hold on its node was released, once, only for a cleared flag: false
// when it already was. Writes a flag_released event with `note` (what the service did).
common::Result<bool> markFlagReleased(Database& db, Id flag_id, std::optional<Id> run_id,
                                      const std::string& note, health::Seconds now);

struct FlagFilter {
  std::optional<std::string> serial;
  std::optional<Id> node_id;  // flags raised while the GPU was in this node
  std::optional<std::string> state;
  std::optional<std::string> rule;
  std::optional<std::string> severity;
  PageRequest page;  // by id, ascending
};

common::Result<GpuFlag> getFlag(Database& db, Id flag_id);
common::Result<std::vector<GpuFlag>> listFlags(Database& db, const FlagFilter& filter);

// What the rules need, read for a flag evaluation at `now`.
struct FlagEvaluationInput {
  std::vector<health::GpuEvidence> gpus;
  std::vector<health::PeerGroup> peer_groups;
  std::vector<std::pair<std::string, Id>> nodes;  // serial -> the node it is in now
};

// The GPUs with a reading since `since`, each with `lookback_days` of complete daily roll-ups
// before `now`'s day, its counter state, XID bursts and remaps in the lookback, and its flags;
// and their peer groups (same GPU model in the same rack, racked nodes only) over the last
// `peer_days` complete days.
common::Result<FlagEvaluationInput> loadFlagEvaluationInput(Database& db, health::Seconds since,
                                                            health::Seconds now,
                                                            int lookback_days = 30,
                                                            int peer_days = 30);

}  // namespace inventory
