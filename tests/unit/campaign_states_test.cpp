// The campaign's state table: every state against every action.
#include <catch2/catch.hpp>

#include <map>

#include "workflows/campaign/states.hpp"

using namespace workflows::campaign;
using S = CampaignState;

TEST_CASE("the whole state table", "[campaign]") {
  const std::vector<std::string> actions = {"start",  "pause",    "resume",
                                            "cancel", "rollback", "complete"};
  // The only allowed moves; every other (state, action) is refused.
  const std::map<std::pair<S, std::string>, S> allowed = {
      {{S::draft, "start"}, S::running},      {{S::draft, "cancel"}, S::cancelled},
      {{S::running, "pause"}, S::paused},     {{S::running, "cancel"}, S::cancelled},
      {{S::running, "rollback"}, S::running}, {{S::running, "complete"}, S::completed},
      {{S::paused, "resume"}, S::running},    {{S::paused, "cancel"}, S::cancelled},
      {{S::paused, "rollback"}, S::running},
  };
  for (S from : {S::draft, S::running, S::paused, S::completed, S::cancelled}) {
    for (const auto& action : actions) {
      INFO(toString(from) << " " << action);
      auto it = allowed.find({from, action});
      auto result = applyAction(from, action);
      CHECK(canTransition(from, action) == (it != allowed.end()));
      CHECK(canTransition(toString(from), action) == (it != allowed.end()));
      if (it != allowed.end()) {
        REQUIRE(result);
        CHECK(*result == it->second);
        CHECK(transition(toString(from), action) == toString(it->second));
      } else {
        REQUIRE_FALSE(result);
        CHECK(result.error().kind == common::ErrorKind::kConflict);
        CHECK(result.error().code == "campaign_state");
        CHECK(result.error().message ==
              "cannot " + action + " a campaign that is " + toString(from));
        CHECK_FALSE(transition(toString(from), action));
      }
    }
  }
}

TEST_CASE("state names and unknown actions or states", "[campaign]") {
  for (S s : {S::draft, S::running, S::paused, S::completed, S::cancelled}) {
    CHECK(parseCampaignState(toString(s)) == s);
  }
  CHECK(toString(S::paused) == "paused");
  CHECK_FALSE(parseCampaignState("archived"));
  auto unknown = applyAction(S::running, "explode");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(unknown.error().field == "action");
  CHECK_FALSE(canTransition("archived", "start"));
  CHECK_FALSE(transition("running", "explode"));
  CHECK(refusal("completed", "resume") == "cannot resume a campaign that is completed");
}
