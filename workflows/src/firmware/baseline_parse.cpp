// The baseline document's shape, checked field by field; every error names its path.
#include <nlohmann/json.hpp>

#include "workflows/firmware/baseline.hpp"

namespace workflows::firmware {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxVersion = 128;
constexpr std::size_t kMaxModel = 256;
constexpr std::size_t kMaxDescription = 1024;

common::Error invalid(const std::string& field, const std::string& what) {
  return common::invalidArgument("invalid_baseline", field + " " + what, field);
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Unknown keys are refused so that a typo ("acepted") is never silently ignored.
common::Result<void> onlyKeys(const json& object, const std::string& path,
                              std::initializer_list<const char*> allowed) {
  for (const auto& item : object.items()) {
    bool known = false;
    for (const char* key : allowed) known = known || item.key() == key;
    if (!known) {
      return common::fail(invalid(join(path, item.key().substr(0, 64)), "is not a known field"));
    }
  }
  return common::success();
}

common::Result<std::string> text(const json& value, const std::string& field, std::size_t max) {
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    return common::fail(invalid(field, "must be a non-empty string"));
  }
  const auto& s = value.get_ref<const std::string&>();
  if (s.size() > max) {
    return common::fail(invalid(field, "is longer than " + std::to_string(max) + " characters"));
  }
  return s;
}

common::Result<BaselineTarget> parseTarget(const json& value, const std::string& path) {
  if (!value.is_object()) return common::fail(invalid(path, "must be {package, version}"));
  PROV_TRY(onlyKeys(value, path, {"package", "version"}));
  BaselineTarget target;
  const std::string package_path = join(path, "package");
  const std::string version_path = join(path, "version");
  if (!value.contains("package")) return common::fail(invalid(package_path, "is required"));
  if (!value.contains("version")) return common::fail(invalid(version_path, "is required"));
  PROV_ASSIGN(target.package, text(value["package"], package_path, 64));
  PROV_ASSIGN(target.version, text(value["version"], version_path, kMaxVersion));
  return target;
}

common::Result<BaselineComponent> parseComponent(const std::string& name, const json& value,
                                                 const std::string& path) {
  if (!isComponentName(name)) {
    return common::fail(invalid(path, "is not a component name (^[a-z][a-z0-9_-]{0,31}$)"));
  }
  if (!value.is_object()) return common::fail(invalid(path, "must be an object"));
  PROV_TRY(onlyKeys(value, path, {"match", "accepted", "target"}));
  BaselineComponent c;
  c.name = name;
  if (value.contains("match") && !value["match"].is_null()) {
    PROV_ASSIGN(c.rule, parseComponentRule(value["match"], join(path, "match")));
  }
  if (value.contains("accepted") && !value["accepted"].is_null()) {
    const json& list = value["accepted"];
    const std::string list_path = join(path, "accepted");
    if (!list.is_array()) return common::fail(invalid(list_path, "must be a list of versions"));
    for (std::size_t i = 0; i < list.size(); ++i) {
      PROV_ASSIGN(auto version,
                  text(list[i], list_path + "[" + std::to_string(i) + "]", kMaxVersion));
      c.accepted.push_back(std::move(version));
    }
  }
  if (value.contains("target") && !value["target"].is_null()) {
    PROV_ASSIGN(c.target, parseTarget(value["target"], join(path, "target")));
  }
  if (c.accepted.empty() && !c.target) {
    return common::fail(invalid(path, "needs accepted versions or a target"));
  }
  return c;
}

common::Result<BaselineModel> parseModel(const std::string& model, const json& value,
                                         const std::string& path) {
  if (model.empty() || model.size() > kMaxModel) {
    return common::fail(invalid(path, "must be a hardware model of 1..256 characters"));
  }
  if (!value.is_object() || value.empty()) {
    return common::fail(invalid(path, "must be an object of components"));
  }
  BaselineModel m;
  m.model = model;
  for (const auto& [name, component] : value.items()) {
    PROV_ASSIGN(auto c, parseComponent(name, component, join(path, name)));
    m.components.push_back(std::move(c));
  }
  return m;
}

}  // namespace

bool isBaselineName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front())) return false;
  for (char c : name) {
    if (!alnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

const BaselineModel* Baseline::model(const std::string& hardware_model) const {
  for (const auto& m : models) {
    if (m.model == hardware_model) return &m;
  }
  return nullptr;
}

common::Result<Baseline> parseBaseline(const json& document) {
  if (!document.is_object()) return common::fail(invalid("", "must be an object"));
  PROV_TRY(onlyKeys(document, "", {"name", "description", "models"}));
  Baseline b;
  if (!document.contains("name")) return common::fail(invalid("name", "is required"));
  PROV_ASSIGN(b.name, text(document["name"], "name", 64));
  if (!isBaselineName(b.name)) {
    return common::fail(invalid("name", "must match ^[a-z0-9][a-z0-9._-]{0,63}$"));
  }
  if (document.contains("description") && !document["description"].is_null()) {
    PROV_ASSIGN(b.description, text(document["description"], "description", kMaxDescription));
  }
  if (!document.contains("models")) return common::fail(invalid("models", "is required"));
  const json& models = document["models"];
  if (!models.is_object() || models.empty()) {
    return common::fail(invalid("models", "must be an object of hardware models"));
  }
  for (const auto& [model, components] : models.items()) {
    PROV_ASSIGN(auto m, parseModel(model, components, "models." + model));
    b.models.push_back(std::move(m));
  }
  return b;
}

}  // namespace workflows::firmware
