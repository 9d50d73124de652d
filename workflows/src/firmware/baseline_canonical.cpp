// Validation against the world's facts (models, packages) and the one canonical form.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "workflows/firmware/baseline.hpp"
#include "workflows/firmware/version_compare.hpp"

namespace workflows::firmware {
namespace {

using nlohmann::json;

std::string componentPath(const BaselineModel& m, const BaselineComponent& c) {
  return "models." + m.model + "." + c.name;
}

// Version order, ties (1.2 vs 1.2.0) by text; exact duplicates dropped.
std::vector<std::string> canonicalAccepted(std::vector<std::string> accepted,
                                           const std::optional<BaselineTarget>& target) {
  if (target) accepted.push_back(target->version);
  std::sort(accepted.begin(), accepted.end(), [](const std::string& a, const std::string& b) {
    const int order = compareFirmwareVersions(a, b);
    return order != 0 ? order < 0 : a < b;
  });
  accepted.erase(std::unique(accepted.begin(), accepted.end()), accepted.end());
  return accepted;
}

common::Result<void> checkTarget(const BaselineModel& m, BaselineComponent& c,
                                 const BaselineFacts& facts) {
  const std::string path = componentPath(m, c) + ".target";
  auto package = facts.package ? facts.package(c.target->package, c.target->version)
                               : std::optional<PackageFacts>();
  if (!package) {
    return common::fail(common::notFound("package_not_found",
                                         path + " names the package " + c.target->package + " " +
                                             c.target->version + ", which does not exist")
                            .withField(path));
  }
  if (package->component != c.name) {
    return common::fail(common::invalidArgument(
        "package_component_mismatch",
        path + ": the package " + package->name + " " + package->version + " is for the " +
            package->component + " component, not " + c.name,
        path + ".package"));
  }
  if (!package->models.empty() &&
      std::find(package->models.begin(), package->models.end(), m.model) == package->models.end()) {
    return common::fail(common::invalidArgument(
        "package_model_mismatch",
        path + ": the package " + package->name + " " + package->version + " is not for " + m.model,
        path + ".package"));
  }
  if (!c.rule) c.rule = package->rule;
  return common::success();
}

}  // namespace

common::Result<Baseline> validateBaseline(const Baseline& baseline, const BaselineFacts& facts) {
  Baseline out = baseline;
  std::sort(out.models.begin(), out.models.end(),
            [](const auto& a, const auto& b) { return a.model < b.model; });
  for (auto& m : out.models) {
    if (facts.known_models.count(m.model) == 0) {
      return common::fail(common::invalidArgument(
          "unknown_model", "models." + m.model + ": no hardware profile is for this model",
          "models." + m.model));
    }
    std::sort(m.components.begin(), m.components.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& c : m.components) {
      if (c.target) PROV_TRY(checkTarget(m, c, facts));
      if (!c.rule) {
        const std::string path = componentPath(m, c) + ".match";
        return common::fail(common::invalidArgument(
            "invalid_component_rule",
            path + " is missing and there is no target package to take the rule from", path));
      }
      c.accepted = canonicalAccepted(std::move(c.accepted), c.target);
    }
  }
  return out;
}

json toJson(const BaselineComponent& c) {
  json out = json::object();
  if (c.rule) out["match"] = toJson(*c.rule);
  out["accepted"] = c.accepted;
  if (c.target) out["target"] = {{"package", c.target->package}, {"version", c.target->version}};
  return out;
}

json canonicalJson(const Baseline& baseline) {
  json models = json::object();
  for (const auto& m : baseline.models) {
    json components = json::object();
    for (const auto& c : m.components) components[c.name] = toJson(c);
    models[m.model] = std::move(components);
  }
  json out = {{"name", baseline.name}, {"models", std::move(models)}};
  if (!baseline.description.empty()) out["description"] = baseline.description;
  return out;
}

std::string canonicalText(const Baseline& baseline) {
  return canonicalJson(baseline).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace workflows::firmware
