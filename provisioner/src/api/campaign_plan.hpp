// Creating a campaign with its plan, and the plan preview: the spec checked by
// workflows/campaign (parseCampaignSpec), the nodes its selector picks placed in waves
// (planWaves), each node's components from -> to, and the estimated duration.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "inventory/campaigns.hpp"
#include "provisioner/api/api.hpp"

namespace provisioner::api {

// The time campaign rows are written with: the engine's clock (ApiContext::clock) when set.
inventory::CampaignTime campaignNow(const ApiContext& ctx);

// POST /api/v1/campaigns: checks the spec, the target (baseline revision or image version) and
// the selection, plans it and stores it as a draft in one transaction. Every bad input is a
// 4xx naming the field, and nothing is stored. Returns the campaign with its "plan".
common::Result<nlohmann::json> createPlannedCampaign(const ApiContext& ctx,
                                                     const nlohmann::json& body,
                                                     const std::string& actor);

// GET /api/v1/campaigns/{id}/plan: every node (id, serial, site, rack, wave, components
// from -> to, estimated seconds), per-wave totals, and the campaign's estimated duration.
common::Result<nlohmann::json> campaignPlanJson(const ApiContext& ctx, inventory::Id campaign_id);

// The state `action` (start, pause, resume, cancel, rollback) takes the campaign to, or
// Conflict "campaign_state" naming the state it is in.
common::Result<std::string> actionTarget(const inventory::Campaign& campaign,
                                         const std::string& action);

}  // namespace provisioner::api
