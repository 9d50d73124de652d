#include "component_plan.hpp"

#include <algorithm>
#include <cctype>

#include "redfish/json.hpp"
#include "workflows/firmware/component_rule.hpp"
#include "workflows/firmware/version_compare.hpp"

namespace workflows::rollout {
namespace {

using nlohmann::json;

common::Error badEntry(std::size_t index, const std::string& field, const std::string& why) {
  const std::string path = "components[" + std::to_string(index) + "]." + field;
  return common::invalidArgument("invalid_components", path + " " + why, path);
}

bool validRule(const json& rule) { return static_cast<bool>(firmware::parseComponentRule(rule, "rule")); }

// "install": {"method", "sha256", "size", "simple_update_fallback"}; absent: simple_update.
common::Result<InstallVia> installOf(const json& entry, std::size_t index, const std::string& at) {
  InstallVia via;
  const json* install = redfish::member(entry, "install");
  if (!install || install->is_null()) return via;
  via.method = redfish::stringAt(*install, "method").value_or("simple_update");
  via.sha256 = redfish::stringAt(*install, "sha256").value_or("");
  via.size = redfish::intAt(*install, "size").value_or(0);
  via.simple_update_fallback = redfish::boolAt(*install, "simple_update_fallback").value_or(false);
  if (via.method != "simple_update" && via.method != "multipart_push") {
    return common::fail(badEntry(index, at + ".method", "must be simple_update or multipart_push"));
  }
  if (via.method == "multipart_push" && via.sha256.size() != 64) {
    return common::fail(badEntry(index, at + ".sha256", "is needed for multipart_push"));
  }
  return via;
}

json toJson(const InstallVia& via) {
  json out = {{"method", via.method}};
  if (via.method == "multipart_push") {
    out["sha256"] = via.sha256;
    out["size"] = via.size;
    out["simple_update_fallback"] = via.simple_update_fallback;
  }
  return out;
}

}  // namespace

common::Result<std::vector<ComponentUpdate>> parseComponents(const json& list) {
  if (!list.is_array() || list.empty()) {
    return common::fail(common::invalidArgument("invalid_components",
                                                "components must be a non-empty list",
                                                "components"));
  }
  std::vector<ComponentUpdate> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& entry = list[i];
    ComponentUpdate u;
    u.component = redfish::stringAt(entry, "component").value_or("");
    u.rule = entry.value("rule", json());
    u.from = redfish::stringAt(entry, "from").value_or("");
    u.to = redfish::stringAt(entry, "to").value_or("");
    u.image_uri = redfish::stringAt(entry, "image_uri").value_or("");
    u.apply = redfish::stringAt(entry, "apply").value_or("immediate");
    u.force = redfish::boolAt(entry, "force").value_or(false);
    u.min_from = redfish::stringAt(entry, "min_from").value_or("");
    if (const json* rb = redfish::member(entry, "rollback"); rb && rb->is_object()) {
      if (auto uri = redfish::stringAt(*rb, "image_uri"); uri && !uri->empty()) {
        u.rollback_image_uri = *uri;
      }
      PROV_ASSIGN(u.rollback_install, installOf(*rb, i, "rollback.install"));
    }
    PROV_ASSIGN(u.install, installOf(entry, i, "install"));
    if (u.component.empty()) return common::fail(badEntry(i, "component", "is missing"));
    if (!validRule(u.rule)) {
      return common::fail(badEntry(i, "rule", "needs software_id or pattern"));
    }
    if (u.to.empty()) return common::fail(badEntry(i, "to", "is missing"));
    if (u.image_uri.empty()) return common::fail(badEntry(i, "image_uri", "is missing"));
    if (u.apply != "immediate" && u.apply != "on_reset" && u.apply != "ac_power_cycle") {
      return common::fail(badEntry(i, "apply", "must be immediate, on_reset or ac_power_cycle"));
    }
    out.push_back(std::move(u));
  }
  return out;
}

json toJson(const ComponentUpdate& u) {
  json out = {{"component", u.component}, {"rule", u.rule},   {"from", u.from},
              {"to", u.to},               {"image_uri", u.image_uri}, {"apply", u.apply},
              {"force", u.force}};
  if (!u.min_from.empty()) out["min_from"] = u.min_from;
  out["install"] = toJson(u.install);
  out["rollback"] = u.rollback_image_uri ? json{{"version", u.from},
                                                {"image_uri", *u.rollback_image_uri},
                                                {"install", toJson(u.rollback_install)}}
                                         : json(nullptr);
  return out;
}

std::optional<std::vector<ComponentUpdate>> rollbackOf(
    const std::vector<ComponentUpdate>& touched) {
  std::vector<ComponentUpdate> back;
  for (auto it = touched.rbegin(); it != touched.rend(); ++it) {
    if (!it->rollback_image_uri || it->from.empty()) return std::nullopt;
    ComponentUpdate u = *it;
    u.from = it->to;
    u.to = it->from;
    u.image_uri = *it->rollback_image_uri;
    u.rollback_image_uri.reset();
    u.install = it->rollback_install;
    u.rollback_install = InstallVia{};
    u.min_from.clear();  // going back to what was installed before is always supported
    u.force = true;  // going back is a downgrade
    back.push_back(std::move(u));
  }
  return back;
}

MethodChoice chooseInstallMethod(const InstallVia& install, bool advertises_multipart_push,
                                 bool advertises_simple_update) {
  if (install.method != "multipart_push") return {"simple_update", false, {}};
  if (advertises_multipart_push) return {"multipart_push", false, {}};
  if (!install.simple_update_fallback) {
    return {{},
            false,
            "the BMC advertises no MultipartHttpPushUri and the package does not allow "
            "SimpleUpdate instead (simple_update_fallback)"};
  }
  if (!advertises_simple_update) {
    return {{}, false, "the BMC advertises neither MultipartHttpPushUri nor SimpleUpdate"};
  }
  return {"simple_update", true, {}};
}

bool coversMember(const json& rule, const lifecycle::FirmwareMember& member) {
  auto parsed = firmware::parseComponentRule(rule, "rule");
  return parsed && firmware::matches(*parsed, member);
}

MemberCheck checkMembers(const ComponentUpdate& update,
                         const std::vector<lifecycle::FirmwareMember>& members) {
  MemberCheck check;
  for (const auto& m : members) {
    if (!coversMember(update.rule, m)) continue;
    check.covered.push_back(m.path);
    if (m.version != update.to) {
      const std::string named = (m.id.empty() ? m.path : m.id) + "=" + m.version;
      check.pending.push_back(m.path);
      check.versions.push_back(named);
      if (!update.min_from.empty() && firmware::versionBelow(m.version, update.min_from)) {
        check.below_min_from.push_back(named);
      }
    }
  }
  return check;
}

}  // namespace workflows::rollout
