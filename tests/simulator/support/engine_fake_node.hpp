// A fleet node without the BMC model: answers with its id, reports a made-up identity and
// remembers the behaviour faults it was given, so fleet tests run without BmcModel.
#pragma once

#include <mutex>

#include "simulator/fleet.hpp"

namespace sim::test {

class FakeNode : public FleetNode {
 public:
  explicit FakeNode(const FleetNodePlan& plan);
  HttpResponse handle(const HttpRequest& request) override;
  bool reachable() const override { return true; }
  BmcIdentity identity() const override;
  void setBehaviourFaults(const BehaviourFaults& faults) override;
  nlohmann::json snapshot() const override;
  BehaviourFaults behaviourFaults() const;

 private:
  FleetNodePlan plan_;
  mutable std::mutex mutex_;
  BehaviourFaults faults_;
};

NodeFactory fakeNodeFactory();

}  // namespace sim::test
