#include "campaign_store.hpp"

#include <algorithm>

#include "../lifecycle/host_control.hpp"
#include "inventory/campaigns.hpp"
#include "inventory/firmware_packages.hpp"
#include "inventory/workflow_runs.hpp"
#include "node_steps.hpp"
#include "redfish/json.hpp"

namespace workflows::rollout {
namespace {

using nlohmann::json;

json parsed(const std::string& text, json fallback) {
  json value = json::parse(text.empty() ? "null" : text, nullptr, false);
  return value.is_discarded() || value.is_null() ? fallback : value;
}

std::map<std::string, std::string> labelsOf(const std::string& text) {
  std::map<std::string, std::string> out;
  const json labels = parsed(text, json::object());
  if (!labels.is_object()) return out;
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) out[key] = value.get<std::string>();
  }
  return out;
}

const char* kActor = "campaign";

}  // namespace

common::Result<CampaignView> loadCampaign(const Env& env, std::int64_t campaign_id) {
  auto& db = *env.life.deps.db;
  PROV_ASSIGN(auto c, inventory::getCampaign(db, campaign_id));
  PROV_ASSIGN(auto spec, campaign::parseCampaignSpec(parsed(c.spec_json, json::object())));
  PROV_ASSIGN(auto nodes, inventory::campaignNodes(db, campaign_id, {}));
  CampaignView view;
  view.id = c.id;
  view.state = c.state;
  view.rollback_requested = c.rollback_requested;
  view.current_wave = c.current_wave;
  view.bake_until = c.bake_until_time;
  view.spec = std::move(spec);
  view.nodes.reserve(nodes.size());
  for (const auto& n : nodes) {
    CampaignNodeView v;
    v.node_id = n.node_id;
    v.wave = n.wave;
    v.position = n.position;
    v.state = n.state;
    v.reason = n.reason;
    v.site = n.site;
    v.rack = n.rack;
    v.model = n.hardware_model;
    v.labels = labelsOf(n.labels_json);
    v.run_id = n.run_id;
    v.rollback_run =
        redfish::stringAt(parsed(n.detail_json, json::object()), "mode").value_or("") == "rollback";
    view.nodes.push_back(std::move(v));
  }
  return view;
}

common::Result<CampaignNodeRecord> loadCampaignNode(const Env& env, std::int64_t campaign_id,
                                                    std::int64_t node_id) {
  PROV_ASSIGN(auto n, inventory::getCampaignNode(*env.life.deps.db, campaign_id, node_id));
  CampaignNodeRecord r;
  r.node_id = n.node_id;
  r.components = parsed(n.components_json, json::array());
  r.state = n.state;
  r.detail = parsed(n.detail_json, json::object());
  return r;
}

common::Result<void> moveCampaign(const Env& env, std::int64_t campaign_id,
                                  const std::vector<std::string>& from, const std::string& to,
                                  const std::string& reason, const json& detail, TimePoint now) {
  inventory::CampaignTransition t;
  t.campaign_id = campaign_id;
  t.expected = from;
  t.to = to;
  t.reason = reason;
  t.detail_json = detail.dump();
  t.actor = kActor;
  t.now = now;
  PROV_TRY(inventory::transitionCampaign(*env.life.deps.db, t));
  return common::success();
}

common::Result<void> setCampaignWave(const Env& env, std::int64_t campaign_id, int wave,
                                     std::optional<TimePoint> bake_until, TimePoint now) {
  PROV_TRY(inventory::setCampaignWave(*env.life.deps.db, campaign_id, wave, now, bake_until, now));
  return common::success();
}

common::Result<void> setCampaignNode(const Env& env, std::int64_t campaign_id, std::int64_t node_id,
                                     const std::string& state, const std::string& reason,
                                     const json& detail, std::optional<std::int64_t> run_id,
                                     TimePoint now) {
  inventory::CampaignNodeUpdate u;
  u.campaign_id = campaign_id;
  u.node_id = node_id;
  u.state = state;
  u.reason = reason;
  u.detail_json = detail.dump();
  u.run_id = run_id;
  u.actor = kActor;
  u.now = now;
  PROV_TRY(inventory::updateCampaignNode(*env.life.deps.db, u));
  return common::success();
}

common::Result<void> admitNodes(const Env& env, const CampaignView& c,
                                const std::vector<std::int64_t>& nodes, bool rollback,
                                TimePoint now) {
  inventory::CampaignAdmission a;
  a.campaign_id = c.id;
  a.wave = c.current_wave;
  a.rollback = rollback;
  for (const auto& n : c.nodes) {
    if (n.state == "running") a.running.push_back(n.node_id);
  }
  a.admit = nodes;
  a.reason = rollback ? "rollback" : "";
  a.detail_json = json{{"mode", rollback ? "rollback" : "update"}}.dump();
  a.actor = kActor;
  a.now = now;
  return inventory::admitCampaignNodes(*env.life.deps.db, a);
}

common::Result<bool> setNodeRun(const Env& env, std::int64_t campaign_id, std::int64_t node_id,
                                std::int64_t run_id) {
  return inventory::setCampaignNodeRun(*env.life.deps.db, campaign_id, node_id, run_id);
}

common::Result<void> campaignEvent(const Env& env, std::int64_t campaign_id,
                                   const std::string& kind, const std::string& message,
                                   const json& detail, TimePoint now) {
  inventory::CampaignEvent e;
  e.campaign_id = campaign_id;
  e.at_time = now;
  e.actor = kActor;
  e.kind = kind;
  e.message = message;
  e.detail_json = detail.dump();
  PROV_TRY(inventory::appendCampaignEvent(*env.life.deps.db, e));
  return common::success();
}

common::Result<void> reportNodeResult(const Env& env, StepContext& ctx, const std::string& state,
                                      const std::string& reason, const json& detail) {
  const auto campaign = redfish::intAt(ctx.data(), "campaign_id");
  PROV_ASSIGN(auto node, lifecycle::nodeIdOf(ctx));
  if (!campaign) return common::fail(common::internalError("the run names no campaign_id"));
  json evidence = detail.is_object() ? detail : json::object();
  evidence["mode"] = ctx.data().value("mode", "update");
  if (auto task = redfish::intAt(ctx.data().value("check", json::object()), "task_id")) {
    evidence["check_task_id"] = *task;
  }
  PROV_TRY(
      setCampaignNode(env, *campaign, node, state, reason, evidence, ctx.run().id, ctx.current()));
  if (auto controller = redfish::intAt(ctx.data(), "controller_run")) {
    PROV_TRY(inventory::signalWorkflowRun(*env.life.deps.db, *controller, ctx.now()));
  }
  return common::success();
}

namespace {

PackageRef refOf(const Env& env, const inventory::FirmwarePackage& p) {
  PackageRef ref;
  ref.name = p.spec.name;
  ref.version = p.spec.version;
  ref.component = p.spec.component;
  ref.apply = p.spec.apply;
  ref.rule = parsed(p.spec.match_json, json::object());
  ref.allow_downgrade = p.spec.allow_downgrade;
  ref.min_from_version = p.spec.min_from_version;
  ref.install_method = p.spec.install_method;
  ref.sha256 = p.spec.sha256;
  ref.size = p.spec.size;
  ref.simple_update_fallback = p.spec.simple_update_fallback;
  // What a BMC downloads: the boot route re-checks the digest before it serves the bytes.
  ref.image_uri = env.life.settings.public_url + "/boot/artifacts/" + p.spec.sha256;
  return ref;
}

}  // namespace

common::Result<std::optional<PackageRef>> findPackage(const Env& env, const std::string& name,
                                                      const std::string& version) {
  PROV_ASSIGN(auto found, inventory::findFirmwarePackage(*env.life.deps.db, name, version));
  if (!found) return std::optional<PackageRef>();
  return std::optional<PackageRef>(refOf(env, *found));
}

common::Result<std::optional<PackageRef>> packageForVersion(const Env& env,
                                                            const std::string& component,
                                                            const std::string& model,
                                                            const std::string& version) {
  inventory::FirmwarePackageFilter filter;
  filter.component = component;
  filter.model = model;
  filter.page.limit = 500;
  while (true) {
    PROV_ASSIGN(auto page, inventory::listFirmwarePackages(*env.life.deps.db, filter));
    for (const auto& p : page.items) {
      if (p.spec.version == version) return std::optional<PackageRef>(refOf(env, p));
    }
    if (!page.next_after) return std::optional<PackageRef>();
    filter.page.after = *page.next_after;
  }
}

}  // namespace workflows::rollout
