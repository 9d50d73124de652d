// Revision to revision: which components were added, removed or changed, per model.
#include <map>

#include <nlohmann/json.hpp>

#include "workflows/firmware/baseline.hpp"

namespace workflows::firmware {
namespace {

using nlohmann::json;
using ComponentKey = std::pair<std::string, std::string>;  // model, component

std::map<ComponentKey, const BaselineComponent*> index(const Baseline& b) {
  std::map<ComponentKey, const BaselineComponent*> out;
  for (const auto& m : b.models) {
    for (const auto& c : m.components) out[{m.model, c.name}] = &c;
  }
  return out;
}

json side(const std::optional<BaselineComponent>& c) {
  return c ? toJson(*c) : json(nullptr);
}

}  // namespace

BaselineDiff diffBaselines(const std::optional<Baseline>& before, const Baseline& after) {
  BaselineDiff diff;
  const auto old_index =
      before ? index(*before) : std::map<ComponentKey, const BaselineComponent*>();
  const auto new_index = index(after);
  std::map<ComponentKey, ComponentChange> changes;
  for (const auto& [key, c] : new_index) {
    auto it = old_index.find(key);
    if (it == old_index.end()) {
      changes[key] = {key.first, key.second, "added", std::nullopt, *c};
    } else if (!(*it->second == *c)) {
      changes[key] = {key.first, key.second, "changed", *it->second, *c};
    }
  }
  for (const auto& [key, c] : old_index) {
    if (new_index.count(key) == 0) {
      changes[key] = {key.first, key.second, "removed", *c, std::nullopt};
    }
  }
  for (auto& [key, change] : changes) diff.changes.push_back(std::move(change));
  diff.description_changed = before && before->description != after.description;
  return diff;
}

json toJson(const BaselineDiff& diff) {
  json changes = json::array();
  for (const auto& c : diff.changes) {
    changes.push_back({{"model", c.model},
                       {"component", c.component},
                       {"change", c.change},
                       {"from", side(c.from)},
                       {"to", side(c.to)}});
  }
  return {{"changes", std::move(changes)}, {"description_changed", diff.description_changed}};
}

}  // namespace workflows::firmware
