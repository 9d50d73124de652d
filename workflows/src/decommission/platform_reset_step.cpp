// platform_reset: the node's platform back to defaults once its media are clean: BIOS defaults,
// ComputerSystem.Decommission where offered, Manager.ResetToDefaults when the settings ask, the
// service's own BMC account removed, and the node's secrets retired in the inventory. Each action
// is recorded in data "platform" once done (a resume does not repeat it); an action the BMC does
// not offer is recorded as such, never a failure.
#include <functional>
#include <memory>

#include "../lifecycle/host_control.hpp"
#include "decommission_env.hpp"
#include "redfish/bios.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"
#include "redfish/maintenance.hpp"
#include "redfish/platform_reset.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

// What an action's result means for the record: "done", or why it was not needed/offered.
// nullopt: a real failure (the step retries).
std::optional<std::string> recorded(const common::Result<void>& r) {
  if (r) return std::string("done");
  if (redfish::isNotOffered(r.error())) return "not offered: " + r.error().message;
  if (r.error().kind == common::ErrorKind::kInvalidArgument) {
    return "not offered as asked: " + r.error().message;
  }
  return std::nullopt;
}

common::Result<std::string> managerPathOf(redfish::Client& client, const std::string& system) {
  PROV_ASSIGN(auto body, lifecycle::getJson(client, system));
  const json* links = redfish::member(body, "Links");
  const json* managed = links ? redfish::member(*links, "ManagedBy") : nullptr;
  if (managed && managed->is_array() && !managed->empty()) {
    if (auto id = redfish::odataId(managed->front())) return *id;
  }
  return common::fail(common::notFound("bmc_not_supported", "the system names no manager"));
}

struct Action {
  const char* key;
  const char* what;  // for the timeline
  std::string skip;  // non-empty: recorded as this, not run
  std::function<common::Result<void>()> run;
};

// The account removal was asked (its intent recorded) before the run last stopped, and the BMC
// now refuses the service's login: the removal took effect before that replica stopped.
bool accountGoneOnResume(const json& platform, const common::Error& e) {
  return platform.contains("account_intent") && !platform.contains("account") &&
         e.code == redfish::codes::kAuthFailed;
}

void record(StepContext& ctx, json& platform, const Action& action, const std::string& text) {
  platform[action.key] = text;
  ctx.event("platform_reset", std::string(action.what) + ": " + text,
            {{"action", action.key}, {"result", text}});
}

std::vector<Action> platformActions(const Env& env, const StepContext& ctx,
                                    std::shared_ptr<redfish::Client> bmc) {
  const std::string system = lifecycle::systemPathOf(ctx);
  const std::string account = env.life().settings.bmc_username;
  const bool reset_manager = env.settings.reset_manager;
  // The account goes last but one: the service may be logged in with it. A manager reset to
  // defaults removes it anyway.
  return {
      {"bios", "BIOS defaults", "", [=] { return redfish::resetBiosToDefaults(*bmc, system); }},
      {"system_decommission", "ComputerSystem.Decommission", "",
       [=] { return redfish::decommissionSystem(*bmc, system, {"All"}); }},
      {"account", "the service's BMC account removed",
       reset_manager ? "left to Manager.ResetToDefaults" : "",
       [=]() -> common::Result<void> {
         auto deleted = redfish::deleteAccount(*bmc, account);
         if (!deleted && deleted.error().code == "bmc_account_not_found") return common::success();
         return deleted;
       }},
      {"manager_reset", "Manager.ResetToDefaults", reset_manager ? "" : "not asked",
       [=]() -> common::Result<void> {
         PROV_ASSIGN(auto manager, managerPathOf(*bmc, system));
         return redfish::resetManagerToDefaults(*bmc, manager);
       }},
  };
}

constexpr const char* kGoneOnResume =
    "done: the BMC refuses the account since its removal was asked (resumed after a stop)";

// Runs the actions not yet recorded. The account's removal is an intent written to the run
// first (with what is done so far): once it is gone the service cannot log in again.
std::optional<StepOutcome> runActions(const Env& env, StepContext& ctx, json& platform) {
  auto client = env.life().bmc(ctx);
  for (const auto& action : platformActions(env, ctx, client ? *client : nullptr)) {
    if (platform.contains(action.key)) continue;
    if (!action.skip.empty()) {
      record(ctx, platform, action, action.skip);
      continue;
    }
    const bool is_account = std::string(action.key) == "account";
    if (!client && is_account && accountGoneOnResume(platform, client.error())) {
      record(ctx, platform, action, kGoneOnResume);
      continue;
    }
    if (!client) return lifecycle::bmcTrouble("connecting to the BMC", client.error());
    if (is_account) {
      platform["account_intent"] = lifecycle::isoTime(ctx.current());
      if (!ctx.recordIntent()) {
        return StepOutcome::retry("lease_lost",
                                  "the run's lease moved on; not removing the account");
      }
    }
    auto result = action.run();
    if (!result && is_account && accountGoneOnResume(platform, result.error())) {
      record(ctx, platform, action, kGoneOnResume);
      continue;
    }
    auto text = recorded(result);
    if (!text) return lifecycle::bmcTrouble(action.what, result.error());
    record(ctx, platform, action, *text);
  }
  return std::nullopt;
}

}  // namespace

StepOutcome platformResetStep(const Env& env, StepContext& ctx) {
  auto node_id = lifecycle::nodeIdOf(ctx);
  if (!node_id) return StepOutcome::fail("no_node", node_id.error().message);
  json& platform = rollout::section(ctx, "platform");
  if (auto stopped = runActions(env, ctx, platform)) return *stopped;
  if (!platform.contains("secrets")) {
    auto retired = inventory::retireNodeSecrets(env.db(), *node_id);
    if (!retired) return StepOutcome::retry("inventory_error", retired.error().message);
    platform["secrets"] = {{"bmc_credentials", retired->bmc_credentials},
                           {"boot_macs", retired->boot_macs},
                           {"agent_tokens", retired->agent_tokens}};
    ctx.event("secrets_retired", "the node's BMC secret, boot MACs and agent tokens retired",
              platform["secrets"]);
  }
  return StepOutcome::next("certify", "platform back to defaults, secrets retired");
}

}  // namespace workflows::decommission
