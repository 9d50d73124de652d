#include "simulator/support/engine_fake_node.hpp"

#include <nlohmann/json.hpp>

namespace sim::test {

FakeNode::FakeNode(const FleetNodePlan& plan) : plan_(plan) {}

HttpResponse FakeNode::handle(const HttpRequest& request) {
  nlohmann::json body = {{"id", plan_.id}, {"path", request.path}};
  return HttpResponse::json(200, body.dump());
}

BmcIdentity FakeNode::identity() const {
  BmcIdentity identity;
  identity.id = plan_.id;
  identity.profile = plan_.profile;
  identity.chassisSerial = "SN" + std::to_string(plan_.seed);
  identity.systemSerial = "SYS" + std::to_string(plan_.seed);
  identity.gpuSerials = {"GPU" + std::to_string(plan_.seed) + "-0"};
  std::lock_guard lock(mutex_);
  if (faults_.chassisSerial) identity.chassisSerial = *faults_.chassisSerial;
  return identity;
}

void FakeNode::setBehaviourFaults(const BehaviourFaults& faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

BehaviourFaults FakeNode::behaviourFaults() const {
  std::lock_guard lock(mutex_);
  return faults_;
}

nlohmann::json FakeNode::snapshot() const {
  std::lock_guard lock(mutex_);
  return {{"id", plan_.id}, {"index", plan_.index}, {"hung_tasks", faults_.hungTasks}};
}

NodeFactory fakeNodeFactory() {
  return [](const FleetNodePlan& plan) -> common::Result<std::shared_ptr<FleetNode>> {
    return std::shared_ptr<FleetNode>(std::make_shared<FakeNode>(plan));
  };
}

}  // namespace sim::test
