#include "campaign_components.hpp"

#include "inventory/images.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using nlohmann::json;

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
  // Baselines are stored by the firmware store (migration 0005 onwards); until it is part of the
  // service no baseline exists.
  return common::fail(common::unprocessable(
      "unknown_baseline", "no baseline " + target.baseline_name + " is stored", "baseline"));
}

NodeUpdatePlanner::NodeUpdatePlanner(const ApiContext& ctx, CampaignTarget target)
    : ctx_(ctx), target_(std::move(target)) {}

Result<NodeUpdatePlan> NodeUpdatePlanner::plan(const inventory::CampaignCandidate& node) {
  return target_.kind == "image" ? imagePlan(node) : firmwarePlan(node);
}

Result<NodeUpdatePlan> NodeUpdatePlanner::firmwarePlan(const inventory::CampaignCandidate&) {
  NodeUpdatePlan plan;
  plan.estimated_seconds = kNodeOverheadSeconds;
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
