#include "rollout_env.hpp"

#include <algorithm>

namespace workflows {

std::string campaignSubject(std::int64_t campaign_id) {
  return "campaign:" + std::to_string(campaign_id);
}

std::string nodeUpdateSubject(std::int64_t campaign_id, std::int64_t node_id) {
  return "campaign:" + std::to_string(campaign_id) + ":node:" + std::to_string(node_id);
}

namespace rollout {

nlohmann::json& section(StepContext& ctx, const char* key) {
  nlohmann::json& value = ctx.data()[key];
  if (!value.is_object()) value = nlohmann::json::object();
  return value;
}

StepOutcome pollUntil(const Env& env, const StepContext& ctx, Duration real_world,
                      TimePoint deadline, std::string waiting_for, std::string message) {
  const TimePoint next = std::min(env.after(ctx.now(), real_world), deadline);
  return StepOutcome::waitUntil(next, std::move(waiting_for), std::move(message));
}

}  // namespace rollout
}  // namespace workflows
