// tick: the campaign controller's one step. It looks at the campaign and its nodes, lets
// decide() say what happens, and does it: starts node runs, pauses, bakes, opens the next wave,
// completes. It waits between looks; node runs and operator actions signal it.
//
//   data: {"campaign_id", "gate_done": [waves], "failures_acknowledged": n}
#include <algorithm>

#include "../lifecycle/host_control.hpp"
#include "campaign_store.hpp"
#include "component_plan.hpp"
#include "controller_steps.hpp"
#include "gate_samples.hpp"
#include "image_controller.hpp"
#include "inventory/workflow_runs.hpp"
#include "redfish/json.hpp"

namespace workflows::rollout {
namespace {

using nlohmann::json;
using Kind = ControllerDecision::Kind;

ControllerMemory memoryOf(const json& data) {
  ControllerMemory m;
  for (const auto& w : data.value("gate_done", json::array())) {
    if (w.is_number_integer()) m.gate_done.push_back(w.get<int>());
  }
  m.failures_acknowledged = data.value("failures_acknowledged", 0);
  return m;
}

InstallVia installOf(const PackageRef& package) {
  return {package.install_method, package.sha256, package.size, package.simple_update_fallback};
}

// The planned components with the packages' URIs, apply methods and rollback images.
common::Result<std::vector<ComponentUpdate>> resolveComponents(const Env& env,
                                                               const CampaignNodeRecord& node,
                                                               const std::string& model) {
  std::vector<ComponentUpdate> out;
  for (const auto& planned : node.components) {
    const std::string name = redfish::stringAt(planned, "package").value_or("");
    const std::string to = redfish::stringAt(planned, "to").value_or("");
    PROV_ASSIGN(auto package, findPackage(env, name, to));
    if (!package) {
      return common::fail(
          common::notFound("package_not_found", "no firmware package " + name + " " + to));
    }
    ComponentUpdate u;
    u.component = redfish::stringAt(planned, "component").value_or(package->component);
    u.rule = package->rule;
    u.from = redfish::stringAt(planned, "from").value_or("");
    u.to = to;
    u.image_uri = package->image_uri;
    u.apply = package->apply;
    u.force = package->allow_downgrade;
    u.min_from = package->min_from_version;
    u.install = installOf(*package);
    if (!u.from.empty()) {
      PROV_ASSIGN(auto previous, packageForVersion(env, u.component, model, u.from));
      if (previous && previous->allow_downgrade) {
        u.rollback_image_uri = previous->image_uri;
        u.rollback_install = installOf(*previous);
      }
    }
    out.push_back(std::move(u));
  }
  return out;
}

common::Result<StartResult> startNode(const Env& env, StepContext& ctx, const CampaignView& c,
                                      const CampaignNodeView& n, bool rollback) {
  if (c.spec.kind == "image") return startImageNode(env, ctx, c, n, rollback);
  PROV_ASSIGN(auto record, loadCampaignNode(env, c.id, n.node_id));
  PROV_ASSIGN(auto components, resolveComponents(env, record, n.model));
  if (rollback) {
    auto back = rollbackOf(components);
    if (!back) {
      return common::fail(common::invalidArgument(
          "no_rollback_package", "a component of the node has no package of its previous version"));
    }
    components = std::move(*back);
  }
  json list = json::array();
  for (const auto& u : components) list.push_back(toJson(u));
  json context = lifecycle::nodeBmcContext(env.life, n.node_id);
  context["campaign_id"] = c.id;
  context["node_id"] = n.node_id;
  context["controller_run"] = ctx.run().id;
  context["mode"] = rollback ? "rollback" : "update";
  context["quick_check"] = c.spec.quick_check && !rollback;
  context["components"] = std::move(list);
  StartRequest request;
  request.kind = kNodeFirmwareUpdate;
  request.subject = nodeUpdateSubject(c.id, n.node_id);
  request.context = std::move(context);
  request.node_id = n.node_id;
  request.site = n.site;
  request.rack = n.rack;
  request.actor = "campaign:" + std::to_string(c.id);
  return env.start_run(request);
}

// Starts the run of an admitted node (an open run of its subject is found again, never doubled)
// and records it. A node that cannot be updated as planned fails (and counts against the
// budget); a passing fault is an error to retry the step on.
common::Result<bool> startAdmitted(const Env& env, StepContext& ctx, const CampaignView& c,
                                   const CampaignNodeView& n, bool rollback) {
  auto run = startNode(env, ctx, c, n, rollback);
  if (!run && run.error().kind != common::ErrorKind::kUnavailable &&
      run.error().kind != common::ErrorKind::kInternal) {
    PROV_TRY(setCampaignNode(env, c.id, n.node_id, "failed", run.error().code,
                             {{"message", run.error().message}}, std::nullopt, ctx.current()));
    return false;
  }
  if (!run) return common::fail(run.error());
  PROV_TRY(setNodeRun(env, c.id, n.node_id, run->run_id));
  return true;
}

const CampaignNodeView* findNode(const CampaignView& c, std::int64_t id) {
  const auto it = std::find_if(c.nodes.begin(), c.nodes.end(),
                               [id](const CampaignNodeView& n) { return n.node_id == id; });
  return it == c.nodes.end() ? nullptr : &*it;
}

// The decision and the nodes' slots are taken in one step (admitNodes), then their runs start:
// a controller stopped in between leaves admitted nodes that the next look starts
// (startOrphans), and a controller that decided from a stale look admits nothing.
StepOutcome startNodes(const Env& env, StepContext& ctx, const CampaignView& c,
                       const ControllerDecision& d) {
  if (auto admitted = admitNodes(env, c, d.start, d.rollback, ctx.current()); !admitted) {
    if (admitted.error().kind == common::ErrorKind::kConflict) {
      return StepOutcome::waitUntil(ctx.now(), "campaign", admitted.error().message);
    }
    return StepOutcome::retry("inventory_error", admitted.error().message);
  }
  int started = 0;
  for (std::int64_t id : d.start) {
    const auto* n = findNode(c, id);
    if (n == nullptr) continue;
    auto run = startAdmitted(env, ctx, c, *n, d.rollback);
    if (!run) return StepOutcome::retry("inventory_error", run.error().message);
    started += *run ? 1 : 0;
  }
  ctx.event("nodes_started",
            std::to_string(started) + " node(s) started in wave " + std::to_string(c.current_wave),
            {{"nodes", d.start}, {"rollback", d.rollback}});
  return StepOutcome::waitUntil(ctx.now(), "campaign", "started " + std::to_string(started));
}

// The resume check: nodes admitted by a look whose runs never started (the controller stopped
// between the two). Their slots are already counted; only their runs are missing. Returns how
// many it found (started, or failed as unstartable).
common::Result<int> startOrphans(const Env& env, StepContext& ctx, const CampaignView& c) {
  int handled = 0;
  for (const auto& n : c.nodes) {
    if (n.state != "running" || n.run_id) continue;
    PROV_TRY(startAdmitted(env, ctx, c, n, n.rollback_run));
    ++handled;
  }
  if (handled > 0) {
    ctx.event("admitted_nodes_started",
              std::to_string(handled) + " node(s) admitted by an earlier look started now", {});
  }
  return handled;
}

StepOutcome pause(const Env& env, StepContext& ctx, const CampaignView& c,
                  const std::string& reason, const std::string& message, json detail) {
  auto moved =
      moveCampaign(env, c.id, {"running"}, "paused", reason + ": " + message, detail, ctx.now());
  if (!moved && moved.error().kind != common::ErrorKind::kConflict) {
    return StepOutcome::retry("inventory_error", moved.error().message);
  }
  ctx.event("campaign_paused", reason + ": " + message, detail);
  return StepOutcome::waitUntil(ctx.now(), "campaign", "paused: " + reason);
}

// After a wave: canary against control; a regression pauses (an operator's resume overrides).
StepOutcome gateThenBake(const Env& env, StepContext& ctx, const CampaignView& c) {
  json& done = ctx.data()["gate_done"];
  if (!done.is_array()) done = json::array();
  done.push_back(c.current_wave);
  const TimePoint bake_until = env.after(ctx.now(), std::chrono::seconds(c.spec.bake_seconds));
  if (c.spec.quick_check && c.spec.kind == "firmware") {
    auto samples = gateSamples(env, c);
    if (!samples) return StepOutcome::retry("inventory_error", samples.error().message);
    const auto verdict =
        campaign::compareToControl(samples->updated, samples->control, c.spec.gate);
    if (!verdict.empty()) {
      json detail = json::array();
      for (const auto& r : verdict) detail.push_back(regressionJson(r));
      return pause(env, ctx, c, "canary_regression", verdict.front().message,
                   {{"wave", c.current_wave}, {"regressions", detail}});
    }
    ctx.event("gate_passed",
              "wave " + std::to_string(c.current_wave) + " within the gate against its control",
              {{"updated_samples", samples->updated.size()},
               {"control_samples", samples->control.size()}});
  }
  auto set = setCampaignWave(env, c.id, c.current_wave, bake_until, ctx.now());
  if (!set) return StepOutcome::retry("inventory_error", set.error().message);
  return StepOutcome::waitUntil(bake_until, "bake",
                                "wave " + std::to_string(c.current_wave) + " baking");
}

StepOutcome finish(const Env& env, StepContext& ctx, const CampaignView& c, const std::string& to,
                   const std::string& reason) {
  auto moved = moveCampaign(env, c.id, {"running"}, to, reason, json::object(), ctx.now());
  if (!moved && moved.error().kind != common::ErrorKind::kConflict) {
    return StepOutcome::retry("inventory_error", moved.error().message);
  }
  // Only a completion promotes an image campaign's channel (not an operator's cancel that won).
  if (moved && to == "completed") {
    if (auto promoted = promoteCompletedChannel(env, ctx, c); !promoted) {
      return StepOutcome::retry("channel_promote_failed", promoted.error().message);
    }
  }
  return StepOutcome::succeed("campaign " + to + ": " + reason);
}

}  // namespace

StepOutcome controllerStep(const Env& env, StepContext& ctx) {
  const auto id = redfish::intAt(ctx.data(), "campaign_id");
  if (!id) return StepOutcome::fail("no_campaign", "the run names no campaign_id");
  auto campaign = loadCampaign(env, *id);
  if (!campaign) return StepOutcome::retry("inventory_error", campaign.error().message);
  auto orphans = startOrphans(env, ctx, *campaign);
  if (!orphans) return StepOutcome::retry("inventory_error", orphans.error().message);
  if (*orphans > 0) return StepOutcome::waitUntil(ctx.now(), "campaign", "admitted nodes started");
  const Duration poll = env.life.settings.timings.scaled(env.settings.timings.controller_poll);
  const auto d = decide(*campaign, ctx.now(), poll, memoryOf(ctx.data()));
  switch (d.kind) {
    case Kind::kStop:
      // A completion whose promotion failed is tried again here (the campaign is completed by
      // this run's earlier try); a later run of a completed campaign promotes nothing.
      if (campaign->state == "completed" && ctx.run().attempt > 0) {
        if (auto promoted = promoteCompletedChannel(env, ctx, *campaign); !promoted) {
          return StepOutcome::retry("channel_promote_failed", promoted.error().message);
        }
      }
      return StepOutcome::succeed(d.message);
    case Kind::kWait:
      return StepOutcome::waitUntil(d.until, d.reason);
    case Kind::kStart:
      return startNodes(env, ctx, *campaign, d);
    case Kind::kPause: {
      int failed = 0;
      for (const auto& n : campaign->nodes) failed += failedNodeState(n.state) ? 1 : 0;
      ctx.data()["failures_acknowledged"] = failed;
      return pause(env, ctx, *campaign, d.reason, d.message, {{"nodes", d.nodes}});
    }
    case Kind::kBake:
      return gateThenBake(env, ctx, *campaign);
    case Kind::kAdvance: {
      auto set = setCampaignWave(env, *id, d.next_wave, std::nullopt, ctx.now());
      if (!set) return StepOutcome::retry("inventory_error", set.error().message);
      (void)campaignEvent(env, *id, "wave_started", "wave " + std::to_string(d.next_wave),
                          {{"wave", d.next_wave}}, ctx.now());
      return StepOutcome::waitUntil(ctx.now(), "campaign", "wave " + std::to_string(d.next_wave));
    }
    case Kind::kComplete:
      return finish(env, ctx, *campaign, "completed", d.message);
    case Kind::kFinishRollback:
      return finish(env, ctx, *campaign, "cancelled", "rolled back: " + d.message);
  }
  return StepOutcome::fail("unknown_decision", "the controller decided nothing it knows");
}

}  // namespace workflows::rollout
