// The campaign's states and which operator action may move it where (pure).
//   draft -start-> running -pause-> paused -resume-> running -complete-> completed
//   draft|running|paused -cancel-> cancelled;  running|paused -rollback-> running (taking back)
// completed and cancelled are final. The string forms are the stored ones ("draft", "running").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace workflows::campaign {

enum class CampaignState { draft, running, paused, completed, cancelled };

std::string toString(CampaignState state);
std::optional<CampaignState> parseCampaignState(std::string_view text);

// The actions: start, pause, resume, cancel, rollback, complete.
bool canTransition(CampaignState from, std::string_view action);
// The state `action` leads to, or Conflict code "campaign_state" naming the current state
// ("cannot pause a campaign that is draft"); an unknown action is InvalidArgument "unknown_action".
common::Result<CampaignState> applyAction(CampaignState from, std::string_view action);

// The same over the stored strings (an unknown state allows nothing).
// The state an action leads to from `from`, or nullopt when it may not be taken there.
std::optional<std::string> transition(const std::string& from, const std::string& action);
// A clear refusal: "cannot pause a campaign that is draft".
std::string refusal(const std::string& from, const std::string& action);
bool canTransition(const std::string& from, const std::string& action);

}  // namespace workflows::campaign
