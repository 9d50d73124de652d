// Baselines: per hardware model, per component, the accepted versions and the target package.
// Parsed from YAML or JSON (one document shape), validated against the packages and hardware
// profiles that exist, written in one canonical form, and compared revision to revision.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"
#include "workflows/firmware/component_rule.hpp"

namespace workflows::firmware {

struct BaselineTarget {
  std::string package;
  std::string version;

  bool operator==(const BaselineTarget&) const = default;
};

struct BaselineComponent {
  std::string name;  // "bmc", "gpu", ...
  // The members this component is: the document's "match", else the target package's rule
  // (filled in by validateBaseline, so a validated baseline always has one).
  std::optional<ComponentRule> rule;
  std::vector<std::string> accepted;  // canonical: version order, no duplicates, with the target
  std::optional<BaselineTarget> target;

  bool operator==(const BaselineComponent&) const = default;
};

struct BaselineModel {
  std::string model;                          // a hardware_model string ("DGX H100")
  std::vector<BaselineComponent> components;  // by name

  bool operator==(const BaselineModel&) const = default;
};

struct Baseline {
  std::string name;
  std::string description;
  std::vector<BaselineModel> models;  // by model

  bool operator==(const Baseline&) const = default;

  const BaselineModel* model(const std::string& hardware_model) const;
};

// ^[a-z0-9][a-z0-9._-]{0,63}$, like profile and channel names.
bool isBaselineName(const std::string& name);

// The document as JSON; YAML is converted first (scalars stay strings, so "24.10" is never a
// number). InvalidArgument "malformed_baseline" (with line and column) or "invalid_body".
common::Result<nlohmann::json> baselineDocument(const std::string& text);

// {"name", "description"?, "models": {MODEL: {COMPONENT: {"match"?, "accepted"?, "target"?}}}}.
// Shape errors: InvalidArgument "invalid_baseline" naming the field as a path
// ("models.DGX H100.bmc.target.version"); a bad rule is "invalid_component_rule".
common::Result<Baseline> parseBaseline(const nlohmann::json& document);

// What a baseline may refer to.
struct PackageFacts {
  std::string name, version, component;
  std::vector<std::string> models;  // empty: any model
  ComponentRule rule;
};
struct BaselineFacts {
  // Models that have a hardware profile (a model without one is unknown).
  std::set<std::string> known_models;
  // The package of that name and version, or nullopt.
  std::function<std::optional<PackageFacts>(const std::string& name, const std::string& version)>
      package;
};

// Every model known, every target package existing, for that component and model, every
// component with a rule. Returns the baseline in canonical form: rules filled in from the target
// package where the document has none, the target version among the accepted ones, accepted in
// version order. Errors name the field: NotFound "package_not_found", InvalidArgument
// "unknown_model", "package_component_mismatch", "package_model_mismatch",
// "invalid_component_rule" (no match and no target to take one from).
common::Result<Baseline> validateBaseline(const Baseline& baseline, const BaselineFacts& facts);

// The canonical JSON (object keys sorted; lists in canonical order); parseBaseline() of it gives
// the same baseline back. Two documents that mean the same have the same canonicalText().
nlohmann::json canonicalJson(const Baseline& baseline);
std::string canonicalText(const Baseline& baseline);

// What changed from one revision to the next, per model and component.
struct ComponentChange {
  std::string model, component;
  std::string change;  // "added", "removed", "changed"
  std::optional<BaselineComponent> from, to;
};
struct BaselineDiff {
  std::vector<ComponentChange> changes;  // by model, then component
  bool description_changed = false;
  bool empty() const { return changes.empty() && !description_changed; }
};
// `before` nullopt: everything in `after` is added.
BaselineDiff diffBaselines(const std::optional<Baseline>& before, const Baseline& after);
nlohmann::json toJson(const BaselineDiff& diff);
nlohmann::json toJson(const BaselineComponent& component);

}  // namespace workflows::firmware
