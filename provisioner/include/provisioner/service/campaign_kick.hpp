// How the service makes a campaign's controller go: the API's campaign routes call the kick on
// start, resume and rollback (and on pause and cancel of a live campaign), and it reaches the
// workflow engine's firmware_campaign run for the campaign.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/result.hpp"
#include "inventory/types.hpp"

namespace workflows {
class Engine;
}  // namespace workflows

namespace provisioner::service {

// The workflow kind of the campaign controller, firmware and image campaigns alike.
inline constexpr const char* kCampaignControllerKind = "firmware_campaign";

// "campaign:<id>": the controller run's subject (one open run per campaign).
std::string campaignControllerSubject(inventory::Id campaign_id);

using CampaignKick = std::function<common::Result<void>(inventory::Id campaign_id)>;

// Starts the campaign's controller run (kind kCampaignControllerKind, subject
// campaignControllerSubject(id), context {"campaign_id": id}) when none is open, and signals the
// open one otherwise, so it looks at the campaign again now. An engine without the controller
// registered answers Unavailable "campaign_controller_missing".
CampaignKick engineCampaignKick(std::shared_ptr<workflows::Engine> engine);

}  // namespace provisioner::service
