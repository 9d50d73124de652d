#include "baseline_input.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "inventory/firmware_packages.hpp"
#include "inventory/images.hpp"

namespace provisioner::api {
namespace {

namespace fw = workflows::firmware;
using common::Result;
using PackageKey = std::pair<std::string, std::string>;

Result<std::map<PackageKey, fw::PackageFacts>> targetPackages(inventory::Database& db,
                                                              const fw::Baseline& baseline) {
  std::map<PackageKey, fw::PackageFacts> out;
  for (const auto& m : baseline.models) {
    for (const auto& c : m.components) {
      if (!c.target) continue;
      const PackageKey key{c.target->package, c.target->version};
      if (out.count(key) != 0) continue;
      PROV_ASSIGN(auto found, inventory::findFirmwarePackage(db, key.first, key.second));
      if (!found) continue;
      const auto rule_json = nlohmann::json::parse(found->spec.match_json, nullptr, false);
      auto rule = fw::parseComponentRule(rule_json, "match");
      if (!rule) continue;  // stored rules were checked at registration
      out[key] = {found->spec.name, found->spec.version, found->spec.component, found->spec.models,
                  *rule};
    }
  }
  return out;
}

}  // namespace

Result<fw::Baseline> readBaseline(inventory::Database& db, const std::string& text) {
  PROV_ASSIGN(auto document, fw::baselineDocument(text));
  PROV_ASSIGN(auto baseline, fw::parseBaseline(document));
  PROV_ASSIGN(auto profiles, inventory::listHardwareProfiles(db));
  PROV_ASSIGN(auto packages, targetPackages(db, baseline));
  fw::BaselineFacts facts;
  for (const auto& p : profiles) facts.known_models.insert(p.model);
  facts.package = [&packages](const std::string& name, const std::string& version) {
    auto it = packages.find({name, version});
    return it == packages.end() ? std::optional<fw::PackageFacts>() : it->second;
  };
  return fw::validateBaseline(baseline, facts);
}

Result<fw::Baseline> storedBaseline(const inventory::BaselineRevision& revision) {
  const auto document = nlohmann::json::parse(revision.content_json, nullptr, false);
  auto parsed = fw::parseBaseline(document);
  if (!parsed) {
    return common::fail(common::internalError("stored baseline " + revision.baseline +
                                              " revision " + std::to_string(revision.revision) +
                                              " does not parse: " + parsed.error().message));
  }
  return parsed;
}

}  // namespace provisioner::api
