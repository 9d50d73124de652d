#include "workflows/campaign/states.hpp"

#include <array>
#include <utility>

namespace workflows::campaign {
namespace {

using S = CampaignState;

struct Edge {
  std::string_view action;
  S from;
  S to;
};

// The whole table: anything not listed is refused.
constexpr std::array<Edge, 9> kEdges = {{
    {"start", S::draft, S::running},
    {"pause", S::running, S::paused},
    {"resume", S::paused, S::running},
    {"complete", S::running, S::completed},
    {"cancel", S::draft, S::cancelled},
    {"cancel", S::running, S::cancelled},
    {"cancel", S::paused, S::cancelled},
    {"rollback", S::running, S::running},
    {"rollback", S::paused, S::running},
}};

constexpr std::array<std::string_view, 6> kActions = {"start",  "pause",    "resume",
                                                      "cancel", "rollback", "complete"};

std::optional<S> next(S from, std::string_view action) {
  for (const auto& e : kEdges) {
    if (e.action == action && e.from == from) return e.to;
  }
  return std::nullopt;
}

bool knownAction(std::string_view action) {
  for (auto a : kActions) {
    if (a == action) return true;
  }
  return false;
}

}  // namespace

std::string toString(CampaignState state) {
  switch (state) {
    case S::draft:
      return "draft";
    case S::running:
      return "running";
    case S::paused:
      return "paused";
    case S::completed:
      return "completed";
    case S::cancelled:
      return "cancelled";
  }
  return "unknown";
}

std::optional<CampaignState> parseCampaignState(std::string_view text) {
  for (S s : {S::draft, S::running, S::paused, S::completed, S::cancelled}) {
    if (toString(s) == text) return s;
  }
  return std::nullopt;
}

bool canTransition(CampaignState from, std::string_view action) {
  return next(from, action).has_value();
}

common::Result<CampaignState> applyAction(CampaignState from, std::string_view action) {
  if (!knownAction(action)) {
    return common::fail(common::invalidArgument(
        "unknown_action", "unknown campaign action: " + std::string(action), "action"));
  }
  if (auto to = next(from, action)) return *to;
  return common::fail(
      common::conflict("campaign_state", refusal(toString(from), std::string(action))));
}

std::optional<std::string> transition(const std::string& from, const std::string& action) {
  auto state = parseCampaignState(from);
  if (!state) return std::nullopt;
  if (auto to = next(*state, action)) return toString(*to);
  return std::nullopt;
}

bool canTransition(const std::string& from, const std::string& action) {
  return transition(from, action).has_value();
}

std::string refusal(const std::string& from, const std::string& action) {
  return "cannot " + action + " a campaign that is " + from;
}

}  // namespace workflows::campaign
