// Hardware profiles: per server model, the channel its nodes boot from, their burn-in plan, and
// the BIOS settings, minimum firmware and GPU model the lifecycle holds them to.
#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "catalog_views.hpp"
#include "input.hpp"
#include "inventory/baselines.hpp"
#include "inventory/images.hpp"
#include "profile_input.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

// A profile names a baseline that exists: a typo would leave its nodes silently uncovered.
Result<void> requireBaseline(const ApiContext& ctx, const std::string& name) {
  PROV_ASSIGN(auto latest, inventory::latestBaselineRevision(*ctx.db, name));
  if (!latest) {
    return common::fail(
        common::notFound("baseline_not_found", "no baseline named " + name).withField("baseline"));
  }
  return common::success();
}

// PUT /api/v1/hardware-profiles/{name}
Result<Response> putProfile(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  http::FieldReader in(body);
  inventory::HardwareProfile profile;
  profile.name = req.pathParam("name");
  PROV_ASSIGN(profile.model, requiredText(in, "model", 256));
  PROV_ASSIGN(profile.channel, requiredText(in, "channel", 64));
  PROV_ASSIGN(auto expected, in.optionalInt("expected_gpus", 0, 64));
  profile.expected_gpus = static_cast<int>(expected.value_or(0));
  // Stored normalised, defaults filled in, so what a node will run is what the profile shows.
  PROV_ASSIGN(auto plan, optionalBurnInPlan(in, "burn_in_plan"));
  profile.burn_in_plan_json = plan ? *plan : agent::toJson(agent::defaultBurnInPlan()).dump();
  PROV_ASSIGN(profile.bios_settings_json, biosSettingsField(in));
  PROV_ASSIGN(profile.min_firmware_json, minFirmwareField(in));
  PROV_ASSIGN(auto gpu_model, in.optionalString("gpu_model", 128));
  profile.gpu_model = gpu_model ? trimmed(*gpu_model) : std::string();
  PROV_ASSIGN(auto baseline, in.optionalString("baseline", 64));
  profile.baseline = trimmed(baseline.value_or(""));
  if (!profile.baseline.empty()) PROV_TRY(requireBaseline(ctx, profile.baseline));
  PROV_ASSIGN(auto stored, inventory::upsertHardwareProfile(*ctx.db, profile, actorOf(req)));
  return http::jsonResponse(200, toJson(stored));
}

Result<Response> getProfile(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto profile, inventory::getHardwareProfile(*ctx.db, req.pathParam("name")));
  return http::jsonResponse(200, toJson(profile));
}

Result<Response> listProfiles(const ApiContext& ctx, const Request&) {
  PROV_ASSIGN(auto profiles, inventory::listHardwareProfiles(*ctx.db));
  nlohmann::json items = nlohmann::json::array();
  for (const auto& p : profiles) items.push_back(toJson(p));
  return http::jsonResponse(200, {{"items", items}, {"next_cursor", nullptr}});
}

Result<Response> deleteProfile(const ApiContext& ctx, const Request& req) {
  PROV_TRY(inventory::deleteHardwareProfile(*ctx.db, req.pathParam("name"), actorOf(req)));
  return http::Response{204, "application/json", "", {}, "", 0};
}

}  // namespace

void addProfileRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kGet, "/api/v1/hardware-profiles", "profiles.list",
                   Permission::kReadInventory, withContext(ctx, listProfiles)});
  server.addRoute({Method::kGet, "/api/v1/hardware-profiles/{name}", "profiles.get",
                   Permission::kReadInventory, withContext(ctx, getProfile)});
  server.addRoute({Method::kPut, "/api/v1/hardware-profiles/{name}", "profiles.put",
                   Permission::kWriteImages, withContext(ctx, putProfile)});
  server.addRoute({Method::kDelete, "/api/v1/hardware-profiles/{name}", "profiles.delete",
                   Permission::kWriteImages, withContext(ctx, deleteProfile)});
}

}  // namespace provisioner::api
