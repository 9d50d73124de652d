// The controller's and the node runs' view of the campaign tables (inventory/campaigns.hpp),
// in the shapes the decisions take. Thin: reads and writes, no decisions.
#pragma once

#include <string>
#include <vector>

#include "controller_decide.hpp"
#include "rollout_env.hpp"

namespace workflows::rollout {

common::Result<CampaignView> loadCampaign(const Env& env, std::int64_t campaign_id);

struct CampaignNodeRecord {
  std::int64_t node_id = 0;
  nlohmann::json components = nlohmann::json::array();  // planned [{component, from, to, package}]
  std::string state;
  nlohmann::json detail = nlohmann::json::object();
};
common::Result<CampaignNodeRecord> loadCampaignNode(const Env& env, std::int64_t campaign_id,
                                                    std::int64_t node_id);

// State changes of the campaign, with an event in its timeline. `from` lists the states the
// change expects (Conflict when another state holds: an operator acted in between).
common::Result<void> moveCampaign(const Env& env, std::int64_t campaign_id,
                                  const std::vector<std::string>& from, const std::string& to,
                                  const std::string& reason, const nlohmann::json& detail,
                                  TimePoint now);
common::Result<void> setCampaignWave(const Env& env, std::int64_t campaign_id, int wave,
                                     std::optional<TimePoint> bake_until, TimePoint now);
// `now` (here and in admitNodes): when the transition is written, so ctx.current() from a step,
// not ctx.now(): a controller step that began before a node released its slot admits the next
// node after it, and the timeline must show that order (the bench computes the caps from it).
common::Result<void> setCampaignNode(const Env& env, std::int64_t campaign_id, std::int64_t node_id,
                                     const std::string& state, const std::string& reason,
                                     const nlohmann::json& detail,
                                     std::optional<std::int64_t> run_id, TimePoint now);
// The controller's decision `d` (made from the look `c`) and its slots, in one step: the nodes
// enter running with no run yet. Conflict "campaign_changed" when the look no longer holds
// (another controller admitted, a node finished, an operator paused): nothing is written.
common::Result<void> admitNodes(const Env& env, const CampaignView& c,
                                const std::vector<std::int64_t>& nodes, bool rollback,
                                TimePoint now);
// The run started for an admitted node (false: it already has one).
common::Result<bool> setNodeRun(const Env& env, std::int64_t campaign_id, std::int64_t node_id,
                                std::int64_t run_id);
common::Result<void> campaignEvent(const Env& env, std::int64_t campaign_id,
                                   const std::string& kind, const std::string& message,
                                   const nlohmann::json& detail, TimePoint now);

// A firmware package as the node run needs it: where the BMC fetches it and how it applies.
struct PackageRef {
  std::string name, version, component, apply, image_uri;
  std::string min_from_version;  // "": installs over any version
  nlohmann::json rule;
  bool allow_downgrade = false;
  std::string install_method = "simple_update";  // simple_update | multipart_push
  std::string sha256;                            // the stored file (pushed by multipart_push)
  std::int64_t size = 0;
  bool simple_update_fallback = false;
};
// The package `name` at `version`; nullopt when the catalog has none.
common::Result<std::optional<PackageRef>> findPackage(const Env& env, const std::string& name,
                                                      const std::string& version);
// A package of the same component for `model` at `version` (what a rollback flashes).
common::Result<std::optional<PackageRef>> packageForVersion(const Env& env,
                                                            const std::string& component,
                                                            const std::string& model,
                                                            const std::string& version);

}  // namespace workflows::rollout
