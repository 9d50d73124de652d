// Shared steps of the boot and agent API tests: a catalog with an image on "stable", a profile
// for DGX H100, nodes with boot MACs, rendered boot scripts and the token inside them.
#pragma once

#include <string>

#include "agent/protocol.hpp"
#include "support/service_fixture.hpp"

namespace testing {

inline constexpr const char* kDgxModel = "DGX H100";

// A DGX H100 node with one boot MAC; returns its id.
long long makeBootNode(ServiceFixture& svc, const std::string& serial, const std::string& mac);
// The default plan with 1-second tests and 8 expected GPUs.
agent::BurnInPlan quickPlan();
// Image burnin 7.1 on channel stable, and profile dgx-h100 pointing DGX H100 nodes at it.
void prepareCatalog(ServiceFixture& svc);
// Makes the node due for a burn-in in `batch`; returns the task id.
long long startBurnIn(ServiceFixture& svc, long long node, const std::string& batch);
HttpResult bootScript(ServiceFixture& svc, const std::string& mac);
// The one-time agent token a boot script carries.
std::string tokenIn(const std::string& script);
httplib::Headers bearer(const std::string& token);

}  // namespace testing
