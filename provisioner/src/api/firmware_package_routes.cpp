// Firmware packages: the file is uploaded first (PUT /api/v1/artifacts/{sha256}, streamed and
// digest-checked), then POST /api/v1/firmware/packages registers what it is, naming the digest.
// The artifact is verified again at registration and before every use.
#include <nlohmann/json.hpp>

#include "firmware_views.hpp"
#include "images/artifact_store.hpp"
#include "input.hpp"
#include "routes.hpp"
#include "workflows/firmware/component_rule.hpp"
#include "workflows/firmware/package_uri.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

constexpr const char* kInstallMethods[] = {"simple_update", "multipart_push"};
constexpr const char* kApplyModes[] = {"immediate", "on_reset", "ac_power_cycle"};

template <std::size_t N>
Result<std::string> oneOf(const http::FieldReader& in, const char* name,
                          const char* const (&allowed)[N], const char* fallback) {
  PROV_ASSIGN(auto value, in.optionalString(name, 32));
  const std::string v = value.value_or(fallback);
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  return common::fail(common::invalidArgument(
      "invalid_field", std::string(name) + " must be one of " + list, in.pathOf(name)));
}

Result<inventory::FirmwarePackageSpec> readPackage(const http::FieldReader& in) {
  inventory::FirmwarePackageSpec s;
  PROV_ASSIGN(s.name, requiredText(in, "name", 64));
  PROV_ASSIGN(s.version, requiredText(in, "version", 128));
  PROV_ASSIGN(auto vendor, in.optionalString("vendor", 128));
  s.vendor = trimmed(vendor.value_or(""));
  PROV_ASSIGN(s.models, in.arrayOfStrings("models", 256));
  for (std::size_t i = 0; i < s.models.size(); ++i) {
    if (trimmed(s.models[i]).empty()) {
      const std::string field = "models[" + std::to_string(i) + "]";
      return common::fail(common::invalidArgument("invalid_field", field + " is empty", field));
    }
  }
  PROV_ASSIGN(s.component, requiredText(in, "component", 32));
  if (!workflows::firmware::isComponentName(s.component)) {
    return common::fail(common::invalidArgument(
        "invalid_field", "component must match ^[a-z][a-z0-9_-]{0,31}$", "component"));
  }
  if (!in.has("match")) {
    return common::fail(common::invalidArgument("missing_field", "match is required", "match"));
  }
  PROV_ASSIGN(auto rule, workflows::firmware::parseComponentRule(in.json()["match"], "match"));
  s.match_json = workflows::firmware::toJson(rule).dump();
  PROV_ASSIGN(s.sha256, requiredText(in, "sha256", 64));
  if (!images::isSha256Hex(s.sha256)) {
    return common::fail(common::invalidArgument(
        "invalid_field", "sha256 must be 64 lower-case hex digits", "sha256"));
  }
  PROV_ASSIGN(s.install_method, oneOf(in, "install_method", kInstallMethods, "simple_update"));
  PROV_ASSIGN(s.apply, oneOf(in, "apply", kApplyModes, "immediate"));
  PROV_ASSIGN(auto from, in.optionalString("min_from_version", 128));
  s.min_from_version = trimmed(from.value_or(""));
  PROV_ASSIGN(auto downgrade, in.optionalBool("allow_downgrade"));
  s.allow_downgrade = downgrade.value_or(false);
  PROV_ASSIGN(auto fallback, in.optionalBool("simple_update_fallback"));
  s.simple_update_fallback = fallback.value_or(false);
  if (s.simple_update_fallback && s.install_method != "multipart_push") {
    return common::fail(common::invalidArgument(
        "invalid_field", "simple_update_fallback is for install_method multipart_push only",
        in.pathOf("simple_update_fallback")));
  }
  PROV_ASSIGN(auto seconds, in.optionalInt("estimated_seconds", 1, 7 * 24 * 3600));
  s.estimated_seconds = static_cast<int>(seconds.value_or(600));
  return s;
}

Result<images::ArtifactStore*> storeOf(const ApiContext& ctx) {
  if (!ctx.artifacts) {
    return common::fail(common::unavailable("image_store_unavailable",
                                            "this service has no artifact store configured"));
  }
  return ctx.artifacts.get();
}

workflows::firmware::PackageServing servingOf(const ApiContext& ctx) {
  return {ctx.boot.public_url, ctx.boot.mirror_url};
}

// POST /api/v1/firmware/packages: the artifact must be in the store and match its digest.
Result<Response> registerPackage(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto spec, readPackage(http::FieldReader(body)));
  PROV_ASSIGN(auto* store, storeOf(ctx));
  auto stored = store->openVerified(spec.sha256);
  if (!stored) return common::fail(std::move(stored).error().withField("sha256"));
  spec.size = static_cast<std::int64_t>(stored->size);
  PROV_ASSIGN(auto registration, inventory::registerFirmwarePackage(*ctx.db, spec, actorOf(req)));
  PROV_ASSIGN(auto uri,
              workflows::firmware::packageImageUri(*store, spec.sha256, spec.size, servingOf(ctx)));
  return http::jsonResponse(registration.created ? 201 : 200, toJson(registration.package, uri));
}

Result<Response> listPackages(const ApiContext& ctx, const Request& req) {
  inventory::FirmwarePackageFilter filter;
  filter.name = req.query("name").value_or("");
  filter.component = req.query("component").value_or("");
  filter.model = req.query("model").value_or("");
  PROV_ASSIGN(filter.page, pageRequest(req));
  PROV_ASSIGN(auto page, inventory::listFirmwarePackages(*ctx.db, filter));
  return http::jsonResponse(200, pageJson(page));
}

// The package with the URI a BMC would be told, after its artifact was verified again.
Result<Response> getPackage(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto package, inventory::getFirmwarePackage(*ctx.db, req.pathParam("name"),
                                                          req.pathParam("version")));
  PROV_ASSIGN(auto* store, storeOf(ctx));
  auto uri = workflows::firmware::packageImageUri(*store, package.spec.sha256, package.spec.size,
                                                  servingOf(ctx));
  auto out = toJson(package, uri ? *uri : std::string());
  out["artifact_verified"] = static_cast<bool>(uri);
  if (!uri) out["artifact_problem"] = {{"code", uri.error().code}, {"detail", uri.error().message}};
  return http::jsonResponse(200, out);
}

}  // namespace

void addFirmwarePackageRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/firmware/packages", "firmware.packages.register",
                   Permission::kWriteImages, withContext(ctx, registerPackage)});
  server.addRoute({Method::kGet, "/api/v1/firmware/packages", "firmware.packages.list",
                   Permission::kReadInventory, withContext(ctx, listPackages)});
  server.addRoute({Method::kGet, "/api/v1/firmware/packages/{name}/{version}",
                   "firmware.packages.get", Permission::kReadInventory,
                   withContext(ctx, getPackage)});
}

}  // namespace provisioner::api
