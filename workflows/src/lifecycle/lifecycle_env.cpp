// What every lifecycle step shares: time scaling, the run subject, the BMC client with the
// credentials that work now, node state changes, and Redfish errors as outcomes.
#include <algorithm>

#include "common/mac_address.hpp"
#include "common/secret_box.hpp"
#include "host_control.hpp"
#include "inventory/bmc_credentials.hpp"
#include "inventory/nodes.hpp"
#include "inventory/purchase_orders.hpp"
#include "lifecycle_internal.hpp"
#include "redfish/errors.hpp"

namespace workflows {

Duration LifecycleTimings::scaled(Duration d) const {
  const double scale = time_scale > 0 ? time_scale : 1.0;
  const auto ms = static_cast<Duration::rep>(static_cast<double>(d.count()) / scale);
  return Duration(std::max<Duration::rep>(ms, 1));
}

std::string bmcSubject(const std::string& bmc_mac, const std::string& bmc_address) {
  if (!bmc_mac.empty()) {
    auto mac = common::normalizeMac(bmc_mac);
    return "bmc:" + (mac ? *mac : bmc_mac);
  }
  return "bmc-at:" + bmc_address;
}

namespace lifecycle {
namespace {

std::string text(const nlohmann::json& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The purchase order's factory login for this BMC: by its MAC, else the serial match recorded.
common::Result<std::optional<BmcLogin>> factoryLogin(const Env& env, const StepContext& ctx) {
  using Found = std::optional<BmcLogin>;
  std::string serial;
  if (auto mac = text(ctx.data(), "bmc_mac"); !mac.empty()) {
    PROV_ASSIGN(auto unit, inventory::expectedUnitByBmcMac(*env.deps.db, mac));
    if (unit) serial = unit->asset.chassis_serial;
  }
  if (serial.empty() && ctx.data().contains("expected")) {
    serial = text(ctx.data()["expected"], "serial");
  }
  if (serial.empty() || !env.deps.secrets) return Found();
  auto creds = inventory::factoryCredentials(*env.deps.db, *env.deps.secrets, serial);
  if (!creds) {
    if (creds.error().kind == common::ErrorKind::kNotFound) return Found();
    return common::fail(std::move(creds).error());
  }
  return Found(BmcLogin{creds->username, creds->password, "factory", ""});
}

}  // namespace

std::optional<inventory::Id> runNode(const StepContext& ctx) {
  if (ctx.run().node_id) return ctx.run().node_id;
  auto it = ctx.data().find("node_id");
  if (it != ctx.data().end() && it->is_number_integer()) return it->get<inventory::Id>();
  return std::nullopt;
}

std::string bmcBaseUrl(const Env& env, const StepContext& ctx) {
  if (auto url = text(ctx.data(), "base_url"); !url.empty()) return url;
  const std::string port =
      env.settings.bmc_port == 443 ? "" : ":" + std::to_string(env.settings.bmc_port);
  return "https://" + text(ctx.data(), "bmc_address") + port;
}

common::Result<BmcLogin> currentLogin(const Env& env, const StepContext& ctx) {
  std::string pin;
  if (auto node = runNode(ctx); node && env.deps.secrets) {
    PROV_ASSIGN(auto claimed, inventory::bmcCredentials(*env.deps.db, *env.deps.secrets, *node));
    if (claimed) {
      return BmcLogin{claimed->username, claimed->password, "claimed", claimed->tls_fingerprint};
    }
  }
  PROV_ASSIGN(auto factory, factoryLogin(env, ctx));
  if (factory) return *factory;
  if (env.settings.default_factory_credentials) {
    const auto& d = *env.settings.default_factory_credentials;
    return BmcLogin{d.username, d.password, "default", ""};
  }
  return common::fail(common::notFound(
      "no_bmc_credentials", "no purchase-order unit or default gives credentials for the BMC at " +
                                bmcBaseUrl(env, ctx)));
}

common::Result<std::shared_ptr<redfish::BmcClient>> bmcClientWith(const Env& env,
                                                                  const StepContext& ctx,
                                                                  const BmcLogin& login) {
  if (!env.deps.transport) return common::fail(common::internalError("no Redfish transport"));
  redfish::BmcEndpoint endpoint;
  endpoint.baseUrl = bmcBaseUrl(env, ctx);
  endpoint.username = login.username;
  endpoint.password = login.password;
  if (env.settings.bmc_tls_insecure) {
    endpoint.tls.mode = redfish::TlsPolicy::Mode::kInsecure;
  } else if (!login.tls_fingerprint.empty()) {
    endpoint.tls.mode = redfish::TlsPolicy::Mode::kPinned;
    endpoint.tls.pinnedSha256 = login.tls_fingerprint;
  }
  PROV_ASSIGN(auto client, env.deps.transport->client(endpoint));
  // The transport keeps one client per BMC with the first credentials it was given.
  client->setCredentials(login.username, login.password);
  return client;
}

common::Result<std::shared_ptr<redfish::BmcClient>> bmcClient(const Env& env,
                                                              const StepContext& ctx) {
  PROV_ASSIGN(auto login, currentLogin(env, ctx));
  return bmcClientWith(env, ctx, login);
}

StepOutcome outcomeFor(const common::Error& error, const std::string& doing) {
  std::string message = doing + ": " + error.message;
  if (error.code == redfish::codes::kPinMismatch) {
    return StepOutcome::fail(error.code, message, {{"code", error.code}});
  }
  return bmcTrouble(doing, error);  // one mapping of BMC trouble to retries (patient ones too)
}

std::string generateBmcPassword(std::size_t length) {
  length = std::clamp<std::size_t>(length, 8, 64);
  for (;;) {
    std::string s = common::base64Encode(common::randomBytes(48)).substr(0, length);
    std::replace(s.begin(), s.end(), '+', '-');
    std::replace(s.begin(), s.end(), '/', '_');
    auto has = [&](auto pred) { return std::any_of(s.begin(), s.end(), pred); };
    if (has([](char c) { return c >= 'A' && c <= 'Z'; }) &&
        has([](char c) { return c >= 'a' && c <= 'z'; }) &&
        has([](char c) { return c >= '0' && c <= '9'; })) {
      return s;
    }
  }
}

}  // namespace lifecycle

common::Result<std::shared_ptr<redfish::Client>> lifecycle::Env::bmc(const StepContext& ctx) const {
  PROV_ASSIGN(auto client, bmcClient(*this, ctx));
  return std::shared_ptr<redfish::Client>(std::move(client));
}

void lifecycle::enterState(const Env& env, StepContext& ctx, const std::string& state,
                           const std::string& reason) {
  auto node = runNode(ctx);
  if (!node) return;
  auto set = inventory::setNodeState(*env.deps.db, *node, state, "workflow", reason);
  if (!set) {
    ctx.event("state_not_recorded", "could not record state " + state + ": " + set.error().message,
              {{"state", state}});
    return;
  }
  ctx.event("node_state", "node " + std::to_string(*node) + " is " + state,
            {{"state", state}, {"reason", reason}});
}

}  // namespace workflows
