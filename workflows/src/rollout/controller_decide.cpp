#include "controller_decide.hpp"

#include <algorithm>
#include <set>

#include "workflows/campaign/budget.hpp"
#include "workflows/campaign/waves.hpp"
#include "workflows/campaign/windows.hpp"

namespace workflows::rollout {
namespace {

using Kind = ControllerDecision::Kind;

bool running(const CampaignNodeView& n) { return n.state == "running"; }

campaign::PlanNode planNode(const CampaignNodeView& n) {
  campaign::PlanNode p;
  p.id = n.node_id;
  p.site = n.site;
  p.rack = n.rack;
  p.model = n.model;
  p.labels = n.labels;
  return p;
}

// What is in flight now, for the caps.
campaign::InFlight inFlight(const CampaignView& c) {
  campaign::InFlight f;
  for (const auto& n : c.nodes) {
    if (running(n)) campaign::addInFlight(f, planNode(n));
  }
  return f;
}

ControllerDecision waitFor(TimePoint until, std::string what) {
  ControllerDecision d;
  d.kind = Kind::kWait;
  d.until = until;
  d.reason = std::move(what);
  return d;
}

// Started nodes, failures among them, and the failed nodes by id.
struct Tally {
  int started = 0, failed = 0;
  std::vector<std::int64_t> failed_nodes;
  std::string first_reason;
};

Tally tally(const CampaignView& c) {
  Tally t;
  for (const auto& n : c.nodes) {
    if (n.state == "pending" || n.state == "skipped" || n.state == "cancelled") continue;
    ++t.started;
    if (!failedNodeState(n.state)) continue;
    ++t.failed;
    t.failed_nodes.push_back(n.node_id);
    if (t.first_reason.empty()) t.first_reason = n.reason;
  }
  return t;
}

// Starts what the caps and the window allow among `candidates` (plan order).
ControllerDecision admitOrWait(const CampaignView& c, TimePoint now, Duration poll,
                               const std::vector<const CampaignNodeView*>& candidates,
                               bool rollback) {
  if (candidates.empty()) return waitFor(now + poll, "nodes_in_flight");
  if (!campaign::windowOpen(c.spec.windows, now)) {
    const auto opening = campaign::nextOpening(c.spec.windows, now);
    return waitFor(opening ? *opening : now + poll, "maintenance_window");
  }
  std::vector<campaign::PlanNode> plan;
  plan.reserve(candidates.size());
  for (const auto* n : candidates) plan.push_back(planNode(*n));
  auto admitted = campaign::pickAdmissible(c.spec.caps, inFlight(c), plan);
  if (admitted.empty()) return waitFor(now + poll, "caps");
  ControllerDecision d;
  d.kind = Kind::kStart;
  d.start = std::move(admitted);
  d.rollback = rollback;
  return d;
}

ControllerDecision rollbackDecision(const CampaignView& c, TimePoint now, Duration poll) {
  std::vector<const CampaignNodeView*> candidates;
  bool any_running = false;
  for (const auto& n : c.nodes) {
    if (running(n)) any_running = true;
    if (n.state == "succeeded") candidates.push_back(&n);
  }
  if (candidates.empty() && !any_running) {
    ControllerDecision d;
    d.kind = Kind::kFinishRollback;
    d.message = "every node the campaign changed was taken back";
    return d;
  }
  return admitOrWait(c, now, poll, candidates, true);
}

}  // namespace

bool terminalNodeState(const std::string& state) {
  return state != "pending" && state != "running";
}

bool failedNodeState(const std::string& state) {
  return state == "failed" || state == "rolled_back" || state == "rollback_failed";
}

ControllerDecision decide(const CampaignView& c, TimePoint now, Duration poll,
                          const ControllerMemory& memory) {
  const auto& gate_done = memory.gate_done;
  if (c.state == "completed" || c.state == "cancelled") {
    ControllerDecision d;
    d.kind = Kind::kStop;
    d.message = "campaign " + c.state;
    return d;
  }
  // Paused or not started: nothing new starts; running nodes finish and signal this run.
  if (c.state != "running") return waitFor(now + poll * 10, "campaign_" + c.state);
  if (c.rollback_requested) return rollbackDecision(c, now, poll);

  const Tally t = tally(c);
  const int counted = std::max(0, t.failed - memory.failures_acknowledged);
  if (const auto b = campaign::budget(c.spec.failure_budget, t.started, counted); b.spent) {
    ControllerDecision d;
    d.kind = Kind::kPause;
    d.reason = "failure_budget_spent";
    d.message = b.reason + (t.first_reason.empty() ? "" : "; first: " + t.first_reason);
    d.nodes = t.failed_nodes;
    return d;
  }

  int last_wave = 0;
  std::vector<const CampaignNodeView*> pending;
  bool wave_busy = false;
  for (const auto& n : c.nodes) {
    last_wave = std::max(last_wave, n.wave);
    if (n.wave != c.current_wave) continue;
    if (n.state == "pending") pending.push_back(&n);
    if (n.state == "pending" || running(n)) wave_busy = true;
  }
  if (wave_busy) {
    std::sort(pending.begin(), pending.end(),
              [](const auto* a, const auto* b) { return a->position < b->position; });
    return admitOrWait(c, now, poll, pending, false);
  }
  // The wave is through: the gate (once), then the bake, then the next wave.
  if (std::find(gate_done.begin(), gate_done.end(), c.current_wave) == gate_done.end()) {
    ControllerDecision d;
    d.kind = Kind::kBake;  // the caller evaluates the gate before it bakes
    d.next_wave = c.current_wave;
    d.until = now + std::chrono::seconds(c.spec.bake_seconds);
    d.reason = "gate";
    return d;
  }
  if (c.bake_until && now < *c.bake_until) return waitFor(*c.bake_until, "bake");
  ControllerDecision d;
  if (c.current_wave >= last_wave) {
    d.kind = Kind::kComplete;
    d.message = "every wave done";
    return d;
  }
  d.kind = Kind::kAdvance;
  d.next_wave = c.current_wave + 1;
  return d;
}

}  // namespace workflows::rollout
