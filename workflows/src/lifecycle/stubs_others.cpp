// TEMPORARY (delete at merge with the engine and triggers branches): inventory functions other
// helpers implement, declared in the contract headers. These stand-ins let this branch link;
// none of them touches the database.
#include "inventory/bmc_credentials.hpp"
#include "inventory/discovery.hpp"
#include "inventory/workflow_runs.hpp"

namespace inventory {

common::Result<void> linkDiscoveryToNode(Database&, Id, Id, const std::string&) {
  return common::success();
}

common::Result<Discovery> getDiscovery(Database&, Id id) {
  return common::fail(
      common::notFound("discovery_not_found", "no discovery " + std::to_string(id)));
}

common::Result<bool> acquireWorkflowSlot(Database&, Id, const std::string&, const std::string&, int,
                                         WallTime) {
  return true;
}

common::Result<void> setBmcEventTokenHash(Database&, Id, const std::string&) {
  return common::success();
}

}  // namespace inventory
