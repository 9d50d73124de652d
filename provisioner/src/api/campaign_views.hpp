// How campaigns, their nodes, progress and timeline look in API responses (docs/api.md
// "Campaigns").
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "inventory/campaigns.hpp"

namespace provisioner::api {

nlohmann::json campaignJson(const inventory::Campaign& campaign);
nlohmann::json campaignNodeJson(const inventory::CampaignNode& node);
nlohmann::json campaignEventJson(const inventory::CampaignEvent& event);
// [{"wave", "total", "estimated_seconds", "by_state": {state: n}}]
nlohmann::json campaignProgressJson(const std::vector<inventory::CampaignWaveProgress>& waves);
// {state: n} over every wave.
nlohmann::json campaignTotalsJson(const std::vector<inventory::CampaignWaveProgress>& waves);
// Parsed JSON text; the text itself (as a string) when it does not parse.
nlohmann::json parsedJson(const std::string& text);

}  // namespace provisioner::api
