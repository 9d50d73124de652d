// Shared by the campaigns*.cpp sources: rows to records (column lists in queries_campaigns.hpp),
// times to parameters, and the errors they report.
#pragma once

#include <cstdint>
#include <string>

#include "db.hpp"
#include "inventory/campaigns.hpp"

namespace inventory::detail {

// Microseconds since the epoch: how campaign times travel as statement parameters.
std::int64_t campaignMicros(CampaignTime t);

Campaign campaignFromRow(const pqxx::row& row);
CampaignNode campaignNodeFromRow(const pqxx::row& row);
CampaignEvent campaignEventFromRow(const pqxx::row& row);

common::Error campaignNotFound(Id id);
// Conflict "node_in_other_campaign" from a kSelectNodesInOpenCampaigns row.
common::Error nodeInOtherCampaign(const pqxx::row& row);

}  // namespace inventory::detail
