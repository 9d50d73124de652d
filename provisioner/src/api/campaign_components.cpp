#include "campaign_components.hpp"

#include "baseline_input.hpp"
#include "inventory/baselines.hpp"
#include "inventory/firmware_packages.hpp"
#include "inventory/images.hpp"
#include "inventory/node_firmware.hpp"
#include "workflows/firmware/planned_updates.hpp"
#include "workflows/firmware/version_compare.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using nlohmann::json;
namespace fw = workflows::firmware;

// The image the node's profile's channel serves now ("" when there is no profile or channel).
Result<std::string> channelImageFor(const ApiContext& ctx, const std::string& model) {
  PROV_ASSIGN(auto profile, inventory::profileForModel(*ctx.db, model));
  if (!profile || profile->channel.empty()) return std::string();
  auto channel = inventory::getChannel(*ctx.db, profile->channel);
  if (!channel) {
    if (channel.error().code == "channel_not_found") return std::string();
    return common::fail(std::move(channel).error());
  }
  return channel->image.name + " " + channel->image.version;
}

// `from` lists the installed versions lowest first ("unknown" when never read): the node run
// refuses to flash over one below the package's minimum, so the preview says so beforehand.
std::optional<std::string> blockedByMinimum(const std::string& from, const std::string& minimum) {
  if (minimum.empty() || from.empty() || from == "unknown") return std::nullopt;
  const std::string lowest = from.substr(0, from.find(", "));
  if (!fw::versionBelow(lowest, minimum)) return std::nullopt;
  return "below_min_from_version: " + lowest + " is below " + minimum +
         ", the lowest version the package installs over";
}

}  // namespace

Result<void> resolveCampaignTarget(const ApiContext& ctx, CampaignTarget& target) {
  if (target.kind == "image") {
    auto image = inventory::getImage(*ctx.db, target.image_name, target.image_version);
    if (!image && image.error().code == "image_not_found") {
      return common::fail(common::unprocessable(
          "unknown_image",
          "no image " + target.image_name + " version " + target.image_version + " is registered",
          "image"));
    }
    if (!image) return common::fail(std::move(image).error());
    return common::success();
  }
  if (target.baseline_revision) {
    auto revision =
        inventory::getBaselineRevision(*ctx.db, target.baseline_name, *target.baseline_revision);
    if (revision) return common::success();
    if (revision.error().code == "baseline_not_found") {
      return common::fail(common::unprocessable(
          "unknown_baseline", "no baseline " + target.baseline_name + " is stored", "baseline"));
    }
    if (revision.error().code == "revision_not_found") {
      return common::fail(common::unprocessable(
          "unknown_baseline_revision",
          "baseline " + target.baseline_name + " has no revision " +
              std::to_string(*target.baseline_revision),
          "baseline.revision"));
    }
    return common::fail(std::move(revision).error());
  }
  PROV_ASSIGN(auto latest, inventory::latestBaselineRevision(*ctx.db, target.baseline_name));
  if (!latest) {
    return common::fail(common::unprocessable(
        "unknown_baseline", "no baseline " + target.baseline_name + " is stored", "baseline"));
  }
  target.baseline_revision = latest->revision;
  return common::success();
}

NodeUpdatePlanner::NodeUpdatePlanner(const ApiContext& ctx, CampaignTarget target)
    : ctx_(ctx), target_(std::move(target)) {}

Result<NodeUpdatePlan> NodeUpdatePlanner::plan(const inventory::CampaignCandidate& node) {
  return target_.kind == "image" ? imagePlan(node) : firmwarePlan(node);
}

Result<const fw::Baseline*> NodeUpdatePlanner::baseline() {
  if (!baseline_) {
    PROV_ASSIGN(auto revision,
                inventory::getBaselineRevision(*ctx_.db, target_.baseline_name,
                                               target_.baseline_revision.value_or(1)));
    PROV_ASSIGN(auto parsed, storedBaseline(revision));
    baseline_ = std::move(parsed);
  }
  return &*baseline_;
}

Result<NodeUpdatePlanner::PackageFacts> NodeUpdatePlanner::packageFacts(
    const std::string& name, const std::string& version) {
  const std::string key = name + " " + version;
  if (auto it = packages_.find(key); it != packages_.end()) return it->second;
  PROV_ASSIGN(auto found, inventory::findFirmwarePackage(*ctx_.db, name, version));
  PackageFacts facts;
  if (found) facts = {found->spec.estimated_seconds, found->spec.min_from_version};
  packages_[key] = facts;
  return facts;
}

// The node's components the baseline does not accept, from its last FirmwareInventory read.
Result<NodeUpdatePlan> NodeUpdatePlanner::firmwarePlan(const inventory::CampaignCandidate& node) {
  NodeUpdatePlan plan;
  PROV_ASSIGN(const fw::Baseline* b, baseline());
  const fw::BaselineModel* model = b->model(node.hardware_model);
  if (model == nullptr) return plan;  // the baseline says nothing about this model
  PROV_ASSIGN(auto firmware, inventory::getNodeFirmware(*ctx_.db, node.node_id));
  fw::NodeFirmwareFacts facts;
  facts.node_id = node.node_id;
  facts.model = node.hardware_model;
  facts.observed_at = firmware.state.observed_at;
  facts.reachable = firmware.state.reachable;
  for (const auto& m : firmware.members) {
    facts.members.push_back({m.member.path, m.member.member_id, m.member.name,
                             m.member.software_id, m.member.version, m.member.updateable});
  }
  plan.estimated_seconds = kNodeOverheadSeconds;
  for (const auto& u : fw::plannedUpdates(*model, facts)) {
    json component = {
        {"component", u.component}, {"from", u.from}, {"to", u.to}, {"package", u.package}};
    PROV_ASSIGN(auto package, packageFacts(u.package, u.to));
    if (auto why = blockedByMinimum(u.from, package.min_from_version)) component["blocked"] = *why;
    plan.components.push_back(std::move(component));
    plan.estimated_seconds += package.estimated_seconds;
  }
  return plan;
}

Result<NodeUpdatePlan> NodeUpdatePlanner::imagePlan(const inventory::CampaignCandidate& node) {
  auto known = image_now_by_model_.find(node.hardware_model);
  if (known == image_now_by_model_.end()) {
    PROV_ASSIGN(auto now, channelImageFor(ctx_, node.hardware_model));
    known = image_now_by_model_.emplace(node.hardware_model, std::move(now)).first;
  }
  NodeUpdatePlan plan;
  plan.components.push_back({{"component", "image"},
                             {"from", known->second},
                             {"to", target_.image_name + " " + target_.image_version},
                             {"package", nullptr}});
  plan.estimated_seconds = kDefaultImageNodeSeconds;
  return plan;
}

}  // namespace provisioner::api
