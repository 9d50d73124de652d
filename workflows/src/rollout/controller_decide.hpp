// The campaign controller's decision for one look at the world (pure: no I/O, time given).
// The caps, windows, budget and wave arithmetic come from workflows/campaign (planlogic);
// this puts them together: what to start now, whether to pause, bake, advance or finish.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workflows/campaign/spec.hpp"
#include "workflows/clock.hpp"

namespace workflows::rollout {

struct CampaignNodeView {
  std::int64_t node_id = 0;
  int wave = 0;
  int position = 0;
  std::string state;  // pending running succeeded failed rolled_back rollback_failed skipped ...
  std::string reason;
  std::string site, rack, model;
  std::map<std::string, std::string> labels;
  bool rollback_run = false;  // running (or done) as part of a campaign rollback
  // The node's latest run; none while running means admitted by a controller that stopped
  // before it started the run (the next look starts it).
  std::optional<std::int64_t> run_id;
};

struct CampaignView {
  std::int64_t id = 0;
  std::string state;  // draft running paused completed cancelled
  bool rollback_requested = false;
  int current_wave = 0;
  std::optional<TimePoint> bake_until;
  campaign::CampaignSpec spec;
  std::vector<CampaignNodeView> nodes;
};

struct ControllerDecision {
  enum class Kind { kStart, kWait, kPause, kAdvance, kBake, kComplete, kFinishRollback, kStop };
  Kind kind = Kind::kWait;
  std::vector<std::int64_t> start;  // node ids to start now (kStart)
  bool rollback = false;            // the started runs take nodes back
  int next_wave = 0;                // kAdvance
  TimePoint until{};                // kWait / kBake: look again then (or when signalled)
  std::string reason;               // kPause: the reason code; kWait: what it waits for
  std::string message;
  std::vector<std::int64_t> nodes;  // kPause: the nodes that spent the budget
};

// What the controller remembers between looks (its run's context).
struct ControllerMemory {
  std::vector<int> gate_done;     // waves whose canary-vs-control gate passed (or was overridden
                                  // by an operator resuming the campaign it paused)
  int failures_acknowledged = 0;  // failures already counted when the budget paused the campaign:
                                  // an operator who resumes accepts them
};

ControllerDecision decide(const CampaignView& campaign, TimePoint now, Duration poll,
                          const ControllerMemory& memory);

bool terminalNodeState(const std::string& state);
bool failedNodeState(const std::string& state);

}  // namespace workflows::rollout
