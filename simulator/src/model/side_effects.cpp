// What each request changed on the BMC or its host, in the order the BMC accepted them. The chaos
// harness (bench/chaos/run) judges "nothing happened twice" from this record, kept by the BMC,
// not from anything the service says about itself.
#include <cstdint>
#include <cstdio>

#include "model/handlers.hpp"
#include "model/json_util.hpp"

namespace sim::model {
namespace {

// FNV-1a, 64 bits: a request body is compared, never shown (it may hold a password).
std::string digest(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

// The body with its members sorted, so that two requests asking the same thing compare equal.
std::string canonicalDigest(const nlohmann::json& body) {
  return digest(body.dump());
}

std::optional<SideEffect> effect(std::string kind, std::string key) {
  return SideEffect{0, 0, std::move(kind), std::move(key)};
}

std::optional<SideEffect> classifyPatch(const VendorBehaviour& b, const std::string& path,
                                        const nlohmann::json& body) {
  if (contains(b.hostSystems, path)) {
    const auto* boot = member(body, "Boot");
    if (boot == nullptr) return effect("system_patch", canonicalDigest(body));
    return effect("boot_override", stringAt(*boot, "BootSourceOverrideTarget") + ":" +
                                       stringAt(*boot, "BootSourceOverrideEnabled"));
  }
  if (path == b.biosSettingsPath) return effect("bios_patch", canonicalDigest(body));
  if (!b.accountsPath.empty() && path.starts_with(b.accountsPath + "/")) {
    return effect("account_patch", path + ":" + canonicalDigest(body));
  }
  return std::nullopt;
}

std::optional<SideEffect> classifyPost(const VendorBehaviour& b, const std::string& path,
                                       const nlohmann::json& body) {
  if (samePath(b, path, b.resetTarget)) return effect("host_reset", stringAt(body, "ResetType"));
  if (samePath(b, path, b.resetBiosTarget)) return effect("bios_defaults", "");
  if (samePath(b, path, b.managerResetToDefaultsTarget)) return effect("bmc_defaults", "");
  if (samePath(b, path, b.dellJobsPath)) return effect("bios_job", canonicalDigest(body));
  if (samePath(b, path, b.subscriptionsPath)) {
    return effect("subscription", stringAt(body, "Destination"));
  }
  for (const auto& [target, chassis] : b.chassisResets) {
    if (samePath(b, path, target)) {
      return effect("chassis_reset", chassis + ":" + stringAt(body, "ResetType"));
    }
  }
  return std::nullopt;  // firmware updates and erases are recorded with their task
}

}  // namespace

std::optional<SideEffect> classifyRequest(const VendorBehaviour& b, const HttpRequest& request,
                                          const std::string& path) {
  if (request.method == "DELETE") {
    if (!b.accountsPath.empty() && path.starts_with(b.accountsPath + "/")) {
      return effect("account_delete", path);
    }
    if (!b.subscriptionsPath.empty() && path.starts_with(b.subscriptionsPath + "/")) {
      return effect("subscription_delete", path);
    }
    return std::nullopt;  // a session's end changes nothing on the BMC that matters
  }
  if (request.method != "PATCH" && request.method != "POST") return std::nullopt;
  auto body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded()) body = nlohmann::json::object();
  if (request.method == "PATCH") return classifyPatch(b, path, body);
  return classifyPost(b, path, body);
}

void recordSideEffect(ModelState& s, std::string kind, std::string key, std::optional<double> at) {
  s.sideEffects.push_back(SideEffect{static_cast<int>(s.sideEffects.size()) + 1,
                                     at.value_or(s.now()), std::move(kind), std::move(key)});
}

void recordRequestEffect(ModelState& s, const HttpRequest& request, const std::string& path,
                         const HttpResponse& response) {
  if (response.status < 200 || response.status > 299) return;
  auto effect = classifyRequest(s.behaviour(), request, path);
  if (effect) recordSideEffect(s, std::move(effect->kind), std::move(effect->key));
}

nlohmann::json sideEffectsJson(const ModelState& s) {
  auto out = nlohmann::json::array();
  for (const auto& e : s.sideEffects) {
    out.push_back({{"seq", e.seq}, {"at", e.at}, {"kind", e.kind}, {"key", e.key}});
  }
  return out;
}

}  // namespace sim::model
