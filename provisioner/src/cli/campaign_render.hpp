// How provisionerctl shows campaigns to people: the plan, the campaign with its waves, and the
// frames of `campaign watch` (a bar per wave).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace provisioner::cli {

// "45s", "25m", "1h 05m", "2d 03h".
std::string formatDuration(std::int64_t seconds);

// "[########............]": `done` of `total` over `width` cells.
std::string progressBar(std::int64_t done, std::int64_t total, std::size_t width = 20);

// GET /campaigns/{id}/plan: a node table, a table of wave totals and the estimated duration.
void renderPlan(std::ostream& out, const nlohmann::json& plan);

// GET /campaigns/{id}: fields, progress per wave, failures.
void renderCampaign(std::ostream& out, const nlohmann::json& campaign);

// One frame of `campaign watch`: a headline, then a bar and counts per wave.
void renderWatchFrame(std::ostream& out, const nlohmann::json& campaign);

}  // namespace provisioner::cli
