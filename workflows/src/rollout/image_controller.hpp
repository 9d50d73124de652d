// The campaign controller's part for kind image: starting node_image_update runs, and promoting
// the campaign's channel when (and only when) the campaign completes.
#pragma once

#include "controller_decide.hpp"
#include "rollout_env.hpp"

namespace workflows::rollout {

// Starts the node's image update: "image" {"from", "to"} in its context (from: the image the
// plan saw the node's channel serve, else the channel's image now; a campaign rollback swaps
// them).
common::Result<StartResult> startImageNode(const Env& env, StepContext& ctx, const CampaignView& c,
                                           const CampaignNodeView& n, bool rollback);

// A completed image campaign with a channel points the channel at its version: in the channel's
// history (actor "campaign:<id>", the campaign in the reason) and the audit log, like an
// operator's `image promote`. Already there is fine. Remembered in data "channel_promoted".
common::Result<void> promoteCompletedChannel(const Env& env, StepContext& ctx,
                                             const CampaignView& c);

}  // namespace workflows::rollout
