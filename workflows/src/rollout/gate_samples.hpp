// The figures the canary-against-control gate compares: for each node of the wave just done,
// its quick check's per-test median over its GPUs; for the control, the same from the latest
// passed burn-in or quick check of not-yet-updated nodes of the same models.
#pragma once

#include "controller_decide.hpp"
#include "rollout_env.hpp"
#include "workflows/campaign/gate.hpp"

namespace workflows::rollout {

struct GateSamples {
  std::vector<campaign::Sample> updated, control;
};

// At most `max_control` control nodes per model are read (the most recent first).
common::Result<GateSamples> gateSamples(const Env& env, const CampaignView& campaign,
                                        std::size_t max_control = 24);

nlohmann::json regressionJson(const campaign::Regression& regression);

}  // namespace workflows::rollout
