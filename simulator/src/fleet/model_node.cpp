// The default fleet node: a BmcModel behind the engine's handler interface. Kept apart from
// fleet.cpp so that code using its own nodes (tests) does not need the model.
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "simulator/bmc_model.hpp"
#include "simulator/fleet.hpp"

namespace sim {
namespace {

class ModelNode : public FleetNode {
 public:
  explicit ModelNode(std::shared_ptr<BmcModel> model) : model_(std::move(model)) {}
  HttpResponse handle(const HttpRequest& request) override { return model_->handle(request); }
  bool reachable() const override { return model_->reachable(); }
  BmcIdentity identity() const override { return model_->identity(); }
  void setBehaviourFaults(const BehaviourFaults& faults) override { model_->setFaults(faults); }
  nlohmann::json snapshot() const override { return model_->snapshot(); }
  void setBootObserver(std::function<void(const BootEvent&)> observer) override {
    model_->setBootObserver(std::move(observer));
  }
  void setImageFetcher(ImageFetcher fetcher) override {
    model_->setImageFetcher(std::move(fetcher));
  }
  std::vector<FirmwareVersion> firmwareVersions() const override {
    return model_->firmwareVersions();
  }

 private:
  std::shared_ptr<BmcModel> model_;
};

// Profiles are large resource trees: load each once and share it between its nodes.
class ProfileCache {
 public:
  explicit ProfileCache(std::string dir) : dir_(std::move(dir)) {}
  common::Result<std::shared_ptr<const Profile>> get(const std::string& name) {
    std::lock_guard lock(mutex_);
    if (auto found = cache_.find(name); found != cache_.end()) return found->second;
    auto loaded = loadProfile(name, dir_);
    if (!loaded) return loaded;
    cache_.emplace(name, *loaded);
    return loaded;
  }

 private:
  std::string dir_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Profile>> cache_;
};

}  // namespace

NodeFactory modelNodeFactory(std::string profilesDir) {
  auto cache = std::make_shared<ProfileCache>(std::move(profilesDir));
  return [cache](const FleetNodePlan& plan) -> common::Result<std::shared_ptr<FleetNode>> {
    bool personalise = plan.staticDumpDir.empty();
    auto profile = personalise ? cache->get(plan.profile) : loadDumpProfile(plan.staticDumpDir);
    if (!profile) return std::move(profile).error();
    auto model = std::make_shared<BmcModel>(*profile, plan.id, plan.seed, plan.credentials,
                                            *plan.clock, personalise);
    return std::shared_ptr<FleetNode>(std::make_shared<ModelNode>(std::move(model)));
  };
}

common::Result<std::unique_ptr<Fleet>> Fleet::start(FleetSpec spec, FleetOptions options) {
  NodeFactory factory = modelNodeFactory(options.profilesDir);
  return start(std::move(spec), std::move(options), std::move(factory));
}

}  // namespace sim
