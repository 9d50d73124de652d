// Firmware and image campaigns as stored (migration 0006): the campaign, its planned nodes, its
// timeline, and the nodes a selector picks. The planning (workflows/campaign) and the controller
// (the firmware_campaign workflow) decide; this is only how campaigns are kept. Every time is
// passed in from the engine's clock, never taken from the database's.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

using CampaignTime = std::chrono::system_clock::time_point;

// Stored as text with CHECK constraints.
inline constexpr std::string_view kCampaignKinds[] = {"firmware", "image"};
inline constexpr std::string_view kCampaignStates[] = {"draft", "running", "paused", "completed",
                                                       "cancelled"};
inline constexpr std::string_view kCampaignNodeStates[] = {
    "pending",     "running",         "succeeded", "failed",
    "rolled_back", "rollback_failed", "skipped",   "cancelled"};
bool isCampaignState(std::string_view s);
bool isCampaignNodeState(std::string_view s);
// succeeded, failed, rolled_back, rollback_failed, skipped, cancelled: the node is done.
bool isFinishedCampaignNodeState(std::string_view s);

// Which nodes a campaign is about. Every criterion given must hold; an empty one matches all.
struct CampaignSelector {
  std::string site;                 // site name
  std::vector<std::string> racks;   // rack names (any of them)
  std::string model;                // nodes.hardware_model, exactly
  std::vector<std::string> states;  // node states (any of them)
  // Label key -> value, all of them (nodes.labels contains them, migration 0005).
  std::map<std::string, std::string> labels;
  std::vector<Id> node_ids;  // explicit nodes (any of them)
};

// A node as a selector found it: what planning needs (wave placement, caps per rack and label).
struct CampaignCandidate {
  Id node_id = 0;
  std::string chassis_serial;
  std::string state;
  std::string hardware_model;
  std::string site;  // "" when not racked
  std::string rack;  // "" when not racked
  std::string labels_json = "{}";
};

// Selected nodes in id order. Unknown explicit ids are simply not found (the caller compares).
common::Result<std::vector<CampaignCandidate>> campaignCandidates(Database& db,
                                                                  const CampaignSelector& selector);

// One node of a new campaign as planned.
struct PlannedCampaignNode {
  Id node_id = 0;
  int wave = 0;
  int position = 0;                    // plan order across the whole campaign, unique, from 0
  std::string components_json = "[]";  // [{"component", "from", "to", "package"}]
  int estimated_seconds = 0;
  // The snapshot at planning time (from the CampaignCandidate).
  std::string site, rack, hardware_model;
  std::string labels_json = "{}";
};

struct NewCampaign {
  std::string name;              // [a-z0-9][a-z0-9._-]{0,63}, unique
  std::string kind;              // firmware | image
  std::string spec_json = "{}";  // the canonical spec
  std::string baseline_name;     // firmware
  std::optional<int> baseline_revision;
  std::string image_name, image_version;  // image
  std::vector<PlannedCampaignNode> nodes;
  std::string created_by;
  CampaignTime now{};
};

struct Campaign {
  Id id = 0;
  std::string name, kind, state;
  std::string spec_json = "{}";
  std::string baseline_name;
  std::optional<int> baseline_revision;
  std::string image_name, image_version;
  std::string pause_reason;
  std::string pause_detail_json = "{}";
  bool rollback_requested = false;
  int current_wave = 0;
  std::optional<CampaignTime> wave_started_time, bake_until_time;
  Timestamp wave_started_at, bake_until;  // the same as ISO 8601 ("" when unset)
  std::string created_by;
  Timestamp created_at, started_at, finished_at, updated_at;  // "" when unset
  int node_count = 0;
};

// Inserts the campaign (state draft), its nodes and a "created" event in ONE transaction.
// Errors: InvalidArgument for a bad name/kind/target or no nodes (field "selector", code
// "campaign_selects_nothing"); Conflict "duplicate_campaign" (field "name"); Conflict
// "node_in_other_campaign" when a node is in a running or paused campaign (the message names
// the node and that campaign). Nothing is stored on any error.
common::Result<Campaign> createCampaign(Database& db, const NewCampaign& campaign);

// NotFound "campaign_not_found".
common::Result<Campaign> getCampaign(Database& db, Id id);

struct CampaignFilter {
  std::string state;  // "" any
  std::string kind;   // "" any
  PageRequest page;
};
// Newest first is not keyset-friendly; campaigns are listed in id order like everything else.
common::Result<Page<Campaign>> listCampaigns(Database& db, const CampaignFilter& filter);

struct CampaignNode {
  Id campaign_id = 0;
  Id node_id = 0;
  std::string chassis_serial;  // the node's, read now
  int wave = 0;
  int position = 0;
  std::string state;
  std::optional<Id> run_id;
  std::string reason;
  std::string detail_json = "{}";
  std::string components_json = "[]";
  int estimated_seconds = 0;
  std::string site, rack, hardware_model;
  std::string labels_json = "{}";
  Timestamp started_at, finished_at, updated_at;  // "" when unset
};

struct CampaignNodeFilter {
  std::optional<int> wave;
  std::vector<std::string> states;  // any of them; empty: all
  int after_position = -1;          // keyset: nodes with a greater position
  int limit = 0;                    // 0: all of them
};
// In plan order (position). Unknown campaign: NotFound "campaign_not_found".
common::Result<std::vector<CampaignNode>> campaignNodes(Database& db, Id campaign_id,
                                                        const CampaignNodeFilter& filter);
common::Result<CampaignNode> getCampaignNode(Database& db, Id campaign_id, Id node_id);

// Per wave: how many nodes, and how many in each state (states with none are absent).
struct CampaignWaveProgress {
  int wave = 0;
  int total = 0;
  int estimated_seconds = 0;  // the sum over the wave's nodes
  std::map<std::string, int> by_state;
};
// Waves in order. Unknown campaign: NotFound "campaign_not_found".
common::Result<std::vector<CampaignWaveProgress>> campaignProgress(Database& db, Id campaign_id);

struct CampaignTransition {
  Id campaign_id = 0;
  std::vector<std::string> expected;       // the states the campaign must be in now
  std::string to;                          // the new state
  std::string reason;                      // pause_reason when `to` is paused
  std::string detail_json = "{}";          // pause_detail when `to` is paused; the event's detail
  std::optional<bool> rollback_requested;  // written when set
  std::string actor;
  std::string event_kind;  // the timeline event; "" -> "state_changed"
  CampaignTime now{};
};
// Under a row lock: Conflict "campaign_state" (message naming the current state) unless the
// campaign is in one of `expected`. Entering running clears the pause reason and sets
// started_at the first time; entering paused records reason and detail; entering completed or
// cancelled sets finished_at, and cancelled also cancels the nodes still pending (a running
// node finishes under the controller). Leaving draft for running checks again that no node is
// in another running or paused campaign (Conflict "node_in_other_campaign"). Appends the event.
common::Result<Campaign> transitionCampaign(Database& db, const CampaignTransition& transition);

// The controller's wave bookkeeping. bake_until nullopt clears it.
common::Result<Campaign> setCampaignWave(Database& db, Id campaign_id, int wave,
                                         CampaignTime wave_started_at,
                                         std::optional<CampaignTime> bake_until, CampaignTime now);

struct CampaignNodeUpdate {
  Id campaign_id = 0;
  Id node_id = 0;
  std::string state;  // one of kCampaignNodeStates
  std::string reason;
  std::string detail_json = "{}";
  std::optional<Id> run_id;  // written when set, kept otherwise
  std::string actor;         // for the timeline event
  CampaignTime now{};
};
// One statement: entering running sets started_at (first time) and clears finished_at; a
// finished state sets finished_at. A change of state appends a "node_<state>" event with the
// reason. NotFound "campaign_node_not_found".
common::Result<CampaignNode> updateCampaignNode(Database& db, const CampaignNodeUpdate& update);

// The controller's admission: its decision and the nodes' slots in one step, so that two
// controllers (a stale owner of the controller run and its successor, or two looks racing)
// can never both fill the last slot of a rack.
struct CampaignAdmission {
  Id campaign_id = 0;
  int wave = 0;             // the wave the decision was made in (ignored for a rollback)
  bool rollback = false;    // a rollback's admission takes nodes from succeeded, not pending
  std::vector<Id> running;  // the nodes the decision counted in flight
  std::vector<Id> admit;    // the nodes it admits
  std::string reason;       // each admitted node's reason and detail
  std::string detail_json = "{}";
  std::string actor;
  CampaignTime now{};
};
// Under the campaign's row lock, the look the decision was made from must still hold: the
// campaign running, in `wave`, rollback_requested == `rollback`, exactly `running` in flight,
// and every admitted node still pending (succeeded for a rollback). Then each admitted node
// enters running with no run (run_id cleared, started_at stamped once) and a node_running
// event. Otherwise Conflict "campaign_changed", nothing written: the caller looks again.
common::Result<void> admitCampaignNodes(Database& db, const CampaignAdmission& admission);

// The run started for an admitted node. False (nothing written) unless the node is running with
// no run: a node admitted and never started is what a resumed controller starts.
common::Result<bool> setCampaignNodeRun(Database& db, Id campaign_id, Id node_id, Id run_id);

struct CampaignEvent {
  Id id = 0;
  Id campaign_id = 0;
  std::optional<Id> node_id;
  CampaignTime at_time{};  // when written (ignored when read; `at` carries it)
  Timestamp at;            // ISO 8601 when read
  std::string actor, kind, message;
  std::string detail_json = "{}";
};
common::Result<CampaignEvent> appendCampaignEvent(Database& db, const CampaignEvent& event);
// Oldest first, keyset on the event id.
common::Result<Page<CampaignEvent>> campaignEvents(Database& db, Id campaign_id,
                                                   const PageRequest& page);

}  // namespace inventory
