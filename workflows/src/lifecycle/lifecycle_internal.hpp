// Helpers the lifecycle steps share (private to this folder): the run's node, the BMC client
// with the credentials that work now, and Redfish errors turned into step outcomes.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "common/result.hpp"
#include "inventory/types.hpp"
#include "lifecycle_steps.hpp"
#include "redfish/transport.hpp"

namespace workflows::lifecycle {

// The node the match step created, when it has run.
std::optional<inventory::Id> runNode(const StepContext& ctx);

// The credentials Env::bmc logs in with, and where they came from ("claimed", "factory",
// "default"). Never logged.
struct BmcLogin {
  std::string username, password, source;
  std::string tls_fingerprint;  // recorded pin, "" when none
};
common::Result<BmcLogin> currentLogin(const Env& env, const StepContext& ctx);

// "base_url" of the run, else "https://<bmc_address>[:<bmc_port>]".
std::string bmcBaseUrl(const Env& env, const StepContext& ctx);

// The transport's client for this run's BMC, with `login` as its credentials for the next login.
common::Result<std::shared_ptr<redfish::BmcClient>> bmcClientWith(const Env& env,
                                                                  const StepContext& ctx,
                                                                  const BmcLogin& login);
// The same with currentLogin().
common::Result<std::shared_ptr<redfish::BmcClient>> bmcClient(const Env& env,
                                                              const StepContext& ctx);

// A failed Redfish or inventory call as an outcome: a changed certificate fails at once (a
// person must look); anything else is retried while the step's budget lasts. `doing` says what
// the step was doing ("reading the BMC identity").
StepOutcome outcomeFor(const common::Error& error, const std::string& doing);

// A secret a BMC accepts: `length` (8..64) base64url characters with at least one upper-case
// letter, one lower-case letter and one digit.
std::string generateBmcPassword(std::size_t length = 24);

}  // namespace workflows::lifecycle
