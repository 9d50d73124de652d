// The controller's image-campaign part (image_controller.hpp).
#include "image_controller.hpp"

#include "../lifecycle/host_control.hpp"
#include "campaign_store.hpp"
#include "image_plan.hpp"
#include "inventory/access.hpp"
#include "inventory/images.hpp"
#include "redfish/json.hpp"

namespace workflows::rollout {
namespace {

using nlohmann::json;

// The image the node ran before: the plan's `from` (its channel's image when planned), else what
// its channel serves now (an image campaign promotes the channel only at its end).
common::Result<std::optional<ImageVersion>> previousImage(const Env& env,
                                                          const CampaignNodeRecord& record,
                                                          const std::string& model) {
  for (const auto& planned : record.components) {
    if (auto from = parseImageText(redfish::stringAt(planned, "from").value_or(""))) return from;
  }
  auto& db = *env.life.deps.db;
  PROV_ASSIGN(auto profile, inventory::profileForModel(db, model));
  if (!profile || profile->channel.empty()) return std::optional<ImageVersion>();
  auto channel = inventory::getChannel(db, profile->channel);
  if (!channel) {
    if (channel.error().code == "channel_not_found") return std::optional<ImageVersion>();
    return common::fail(std::move(channel).error());
  }
  return std::optional<ImageVersion>(ImageVersion{channel->image.name, channel->image.version});
}

}  // namespace

common::Result<StartResult> startImageNode(const Env& env, StepContext& ctx, const CampaignView& c,
                                           const CampaignNodeView& n, bool rollback) {
  PROV_ASSIGN(auto record, loadCampaignNode(env, c.id, n.node_id));
  PROV_ASSIGN(auto from, previousImage(env, record, n.model));
  json image = {{"from", from ? toJson(*from) : json(nullptr)},
                {"to", toJson(ImageVersion{c.spec.image_name, c.spec.image_version})}};
  if (rollback) {
    if (!from) {
      return common::fail(common::invalidArgument(
          "no_previous_image", "the image the node ran before the campaign is not known"));
    }
    std::swap(image["from"], image["to"]);
  }
  json context = lifecycle::nodeBmcContext(env.life, n.node_id);
  context["campaign_id"] = c.id;
  context["node_id"] = n.node_id;
  context["controller_run"] = ctx.run().id;
  context["mode"] = rollback ? "rollback" : "update";
  context["quick_check"] = true;  // the check is what boots the node into the image
  context["image"] = std::move(image);
  StartRequest request;
  request.kind = kNodeImageUpdate;
  request.subject = nodeUpdateSubject(c.id, n.node_id);
  request.context = std::move(context);
  request.node_id = n.node_id;
  request.site = n.site;
  request.rack = n.rack;
  request.actor = "campaign:" + std::to_string(c.id);
  return env.start_run(request);
}

common::Result<void> promoteCompletedChannel(const Env& env, StepContext& ctx,
                                             const CampaignView& c) {
  const auto channel = channelToPromote(c.spec);
  if (!channel || ctx.data().value("channel_promoted", false)) return common::success();
  auto& db = *env.life.deps.db;
  const std::string actor = "campaign:" + std::to_string(c.id);
  const std::string reason =
      "campaign " + std::to_string(c.id) + " (" + c.spec.name + ") completed";
  const inventory::ImageRef target{c.spec.image_name, c.spec.image_version};
  auto promoted = inventory::promoteChannel(db, *channel, target, actor, reason);
  const bool unchanged = !promoted && promoted.error().code == "channel_unchanged";
  if (!promoted && !unchanged) return common::fail(std::move(promoted).error());
  inventory::AuditEntry audit;
  audit.actor = actor;
  audit.role = "campaign";
  audit.method = "POST";
  audit.path = "/api/v1/channels/" + *channel + "/promote";
  audit.action = "channels.promote";
  audit.status = 200;
  audit.outcome = unchanged ? "channel_unchanged" : "success";
  audit.detail_json = json{
      {"campaign_id", c.id},
      {"image", target.name},
      {"version", target.version},
      {"reason", reason}}.dump();
  PROV_TRY(inventory::appendAudit(db, audit));
  PROV_TRY(campaignEvent(env, c.id, "channel_promoted",
                         "channel " + *channel + " -> " + target.name + " " + target.version,
                         {{"channel", *channel}, {"unchanged", unchanged}}, ctx.now()));
  ctx.data()["channel_promoted"] = true;
  return common::success();
}

}  // namespace workflows::rollout
