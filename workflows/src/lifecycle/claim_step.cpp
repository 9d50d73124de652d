// claim: the factory BMC password (printed on a label, shared by a whole shipment) is replaced
// by a generated per-node secret. The intent is recorded before the BMC is told, so a claim cut
// short by a crash knows which password the BMC may have now.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "inventory/bmc_credentials.hpp"
#include "lifecycle_internal.hpp"
#include "redfish/accounts.hpp"
#include "redfish/errors.hpp"
#include "redfish/quirks.hpp"

namespace workflows::lifecycle {

// Defined in claim_events.cpp.
void subscribeEvents(const Env& env, StepContext& ctx, redfish::BmcClient& client,
                     inventory::Id node_id);

namespace {

std::string text(const nlohmann::json& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Logs in afresh with `password` and reads the Systems collection: does the BMC take it?
common::Result<void> tryLogin(redfish::BmcClient& client, const std::string& username,
                              const std::string& password) {
  client.setCredentials(username, password);
  (void)client.close();  // the next request logs in again with the credentials just set
  redfish::Request request;
  request.target = "/redfish/v1/Systems";
  PROV_ASSIGN(auto response, client.send(std::move(request)));
  if (!response.isSuccess()) return common::fail(redfish::httpError("GET", response));
  return common::success();
}

// 24 characters unless the AccountService says the BMC takes fewer (AMI: 20) or needs more.
std::size_t passwordLength(redfish::BmcClient& client) {
  constexpr std::size_t kPreferred = 24;
  redfish::Request request;
  request.target = "/redfish/v1/AccountService";
  auto response = client.send(std::move(request));
  if (!response || !response->isSuccess()) return kPreferred;
  auto body = nlohmann::json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return kPreferred;
  auto bound = [&](const char* key) -> std::int64_t {
    auto it = body.find(key);
    return it != body.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
  };
  std::int64_t length = kPreferred;
  if (const auto max = bound("MaxPasswordLength"); max >= 8 && max < length) length = max;
  if (const auto min = bound("MinPasswordLength"); min > length && min <= 64) length = min;
  return static_cast<std::size_t>(length);
}

bool refused(const common::Error& error) {
  return error.code == redfish::codes::kAuthFailed ||
         error.kind == common::ErrorKind::kUnauthenticated;
}

// The BMC has taken the pending secret: it becomes the node's password.
StepOutcome commitClaim(const Env& env, StepContext& ctx, redfish::BmcClient& client,
                        inventory::Id node, const std::string& username) {
  auto committed = inventory::commitPendingBmcPassword(*env.deps.db, node);
  if (!committed) return outcomeFor(committed.error(), "recording the new BMC password");
  ctx.event("bmc_password_rotated", "the BMC password of " + username + " was replaced",
            {{"username", username}});
  ctx.data()["claim"]["rotated"] = true;
  if (auto pin = client.certificateFingerprint(); !pin.empty()) {
    auto pinned = inventory::setBmcTlsFingerprint(*env.deps.db, node, pin);
    if (!pinned) return outcomeFor(pinned.error(), "recording the BMC certificate");
  }
  return StepOutcome::next("claim");  // replaced by the caller
}

// Tells the BMC the pending secret (logged in with `current`) and proves it works.
StepOutcome rotate(const Env& env, StepContext& ctx, redfish::BmcClient& client, inventory::Id node,
                   const BmcLogin& current, const std::string& pending) {
  client.setCredentials(current.username, current.password);
  auto quirks = redfish::quirksFor(text(ctx.data(), "vendor"), text(ctx.data(), "bmc_firmware"));
  auto changed = redfish::changeAccountPassword(client, current.username, pending, quirks);
  if (!changed) return outcomeFor(changed.error(), "changing the BMC password");
  if (auto verified = tryLogin(client, current.username, pending); !verified) {
    return outcomeFor(verified.error(), "logging in with the new BMC password");
  }
  return commitClaim(env, ctx, client, node, current.username);
}

// A claim resumed with a secret recorded but not committed: the BMC may already have it.
StepOutcome resumePending(const Env& env, StepContext& ctx, redfish::BmcClient& client,
                          inventory::Id node, const inventory::BmcCredentials& creds) {
  auto works = tryLogin(client, creds.username, *creds.pending);
  if (works) return commitClaim(env, ctx, client, node, creds.username);
  if (!refused(works.error())) {
    return outcomeFor(works.error(), "trying the pending BMC password");
  }
  // Not set on the BMC: the recorded working password still is.
  BmcLogin current{creds.username, creds.password, "claimed", creds.tls_fingerprint};
  return rotate(env, ctx, client, node, current, *creds.pending);
}

StepOutcome claimPassword(const Env& env, StepContext& ctx, inventory::Id node) {
  if (!env.deps.secrets) return StepOutcome::fail("no_secret_box", "BMC secrets cannot be sealed");
  auto creds = inventory::bmcCredentials(*env.deps.db, *env.deps.secrets, node);
  if (!creds) return outcomeFor(creds.error(), "reading the BMC credentials");
  auto login = currentLogin(env, ctx);
  if (!login) return outcomeFor(login.error(), "choosing the BMC credentials");
  auto client = bmcClientWith(env, ctx, *login);
  if (!client) return outcomeFor(client.error(), "opening the BMC");
  if (*creds && (*creds)->pending) return resumePending(env, ctx, **client, node, **creds);
  if (*creds && (*creds)->rotated_at) {
    return StepOutcome::next("claim");  // rotated by an earlier try: nothing to do
  }
  const std::string pending = generateBmcPassword(passwordLength(**client));
  auto recorded = inventory::recordPendingBmcPassword(*env.deps.db, *env.deps.secrets, node,
                                                      login->username, login->password, pending);
  if (!recorded) return outcomeFor(recorded.error(), "recording the BMC password intent");
  return rotate(env, ctx, **client, node, *login, pending);
}

}  // namespace

StepOutcome claimStep(const Env& env, StepContext& ctx) {
  auto node = runNode(ctx);
  if (!node) return StepOutcome::fail("no_node", "claim needs the node the match step creates");
  if (!ctx.data()["claim"].is_object()) ctx.data()["claim"] = nlohmann::json::object();
  StepOutcome claimed = claimPassword(env, ctx, *node);
  if (claimed.kind != StepOutcome::Kind::kNext) return claimed;

  auto client = bmcClient(env, ctx);
  if (!client) return outcomeFor(client.error(), "opening the BMC");
  if (env.settings.subscribe_events && !ctx.data()["claim"].value("subscribed", false)) {
    subscribeEvents(env, ctx, **client, *node);
  }
  enterState(env, ctx, "claimed");
  return StepOutcome::next("inspect", "BMC credentials rotated");
}

}  // namespace workflows::lifecycle
