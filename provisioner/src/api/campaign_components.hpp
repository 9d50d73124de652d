// What one node's update in a campaign changes, components from -> to with the package, and how
// long it is estimated to take; and the check that a campaign's target exists. The one place
// the plan preview learns about firmware (the baseline's compliance) and images (the channels).
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "inventory/campaigns.hpp"
#include "provisioner/api/api.hpp"
#include "workflows/firmware/baseline.hpp"

namespace provisioner::api {

// Estimates when nothing better is known (docs/firmware.md "Campaigns"): a component's flash,
// apply and verify when its package gives no estimated_seconds; the rest of a node's update
// (drain, quick check, undrain); an image campaign's boot into the new version with its check.
inline constexpr int kDefaultComponentSeconds = 900;
inline constexpr int kNodeOverheadSeconds = 600;
inline constexpr int kDefaultImageNodeSeconds = 1200;

// What a campaign rolls out.
struct CampaignTarget {
  std::string kind;  // firmware | image
  std::string baseline_name;
  std::optional<int> baseline_revision;
  std::string image_name, image_version;
};

struct NodeUpdatePlan {
  // [{component, from, to, package}], plus "blocked" naming why a component cannot be flashed
  // from what is installed (the package's min_from_version is above it).
  nlohmann::json components = nlohmann::json::array();
  int estimated_seconds = 0;
};

// Checks that the target exists and fills in what the spec left to the service (a firmware
// campaign without a revision gets the baseline's latest). Unprocessable (422) naming "baseline"
// or "image" when it does not exist.
common::Result<void> resolveCampaignTarget(const ApiContext& ctx, CampaignTarget& target);

// Plans node updates for one target, remembering what it looked up per hardware model.
class NodeUpdatePlanner {
 public:
  NodeUpdatePlanner(const ApiContext& ctx, CampaignTarget target);
  common::Result<NodeUpdatePlan> plan(const inventory::CampaignCandidate& node);

 private:
  common::Result<NodeUpdatePlan> firmwarePlan(const inventory::CampaignCandidate& node);
  common::Result<NodeUpdatePlan> imagePlan(const inventory::CampaignCandidate& node);
  common::Result<const workflows::firmware::Baseline*> baseline();
  struct PackageFacts {
    int estimated_seconds = kDefaultComponentSeconds;
    std::string min_from_version;
  };
  common::Result<PackageFacts> packageFacts(const std::string& name, const std::string& version);

  const ApiContext& ctx_;
  CampaignTarget target_;
  std::map<std::string, std::string> image_now_by_model_;  // "name version" the channel serves
  std::optional<workflows::firmware::Baseline> baseline_;  // the target revision, once loaded
  std::map<std::string, PackageFacts> packages_;           // by "name version"
};

}  // namespace provisioner::api
