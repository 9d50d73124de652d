#include "provisioner/service/campaign_kick.hpp"

#include "workflows/engine.hpp"

namespace provisioner::service {

std::string campaignControllerSubject(inventory::Id campaign_id) {
  return "campaign:" + std::to_string(campaign_id);
}

CampaignKick engineCampaignKick(std::shared_ptr<workflows::Engine> engine) {
  return [engine = std::move(engine)](inventory::Id campaign_id) -> common::Result<void> {
    workflows::StartRequest start;
    start.kind = kCampaignControllerKind;
    start.subject = campaignControllerSubject(campaign_id);
    start.context = {{"campaign_id", campaign_id}};
    start.actor = "campaigns";
    auto started = engine->start(start);
    if (!started) {
      if (started.error().code == "unknown_workflow") {
        return common::fail(common::unavailable(
            "campaign_controller_missing",
            "this service's workflow engine has no campaign controller (firmware_campaign)"));
      }
      return common::fail(std::move(started).error());
    }
    // An open run was already there: wake it, so it sees the campaign's new state now.
    if (!started->created) return engine->signal(started->run_id);
    return common::success();
  };
}

}  // namespace provisioner::service
