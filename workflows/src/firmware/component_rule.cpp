#include "workflows/firmware/component_rule.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace workflows::firmware {
namespace {

constexpr std::size_t kMaxRuleText = 256;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

common::Error badRule(const std::string& field, const std::string& what) {
  return common::invalidArgument("invalid_component_rule", field + " " + what, field);
}

}  // namespace

common::Result<ComponentRule> parseComponentRule(const nlohmann::json& value,
                                                 const std::string& field) {
  if (!value.is_object() || value.size() != 1) {
    return common::fail(
        badRule(field, "must be an object with exactly one of software_id or pattern (a string)"));
  }
  const auto entry = value.begin();  // an object of one member (items() would dangle here)
  const std::string& key = entry.key();
  const nlohmann::json& text = entry.value();
  if (key != "software_id" && key != "pattern") {
    return common::fail(badRule(
        field, "has the unknown rule '" + key.substr(0, 64) + "' (use software_id or pattern)"));
  }
  const std::string path = field + "." + key;
  if (!text.is_string() || text.get_ref<const std::string&>().empty()) {
    return common::fail(badRule(path, "must be a non-empty string"));
  }
  const auto& s = text.get_ref<const std::string&>();
  if (s.size() > kMaxRuleText) return common::fail(badRule(path, "is longer than 256 characters"));
  ComponentRule rule;
  (key == "software_id" ? rule.software_id : rule.pattern) = s;
  return rule;
}

nlohmann::json toJson(const ComponentRule& rule) {
  if (!rule.software_id.empty()) return {{"software_id", rule.software_id}};
  return {{"pattern", rule.pattern}};
}

std::string describe(const ComponentRule& rule) {
  return rule.software_id.empty() ? "pattern=" + rule.pattern : "software_id=" + rule.software_id;
}

bool matches(const ComponentRule& rule, const FirmwareMember& member) {
  if (!rule.software_id.empty()) return member.software_id == rule.software_id;
  if (rule.pattern.empty()) return false;
  const std::string needle = lower(rule.pattern);
  return lower(member.id).find(needle) != std::string::npos ||
         lower(member.name).find(needle) != std::string::npos;
}

std::vector<FirmwareMember> matchingMembers(const ComponentRule& rule,
                                            const std::vector<FirmwareMember>& members) {
  std::vector<FirmwareMember> out;
  for (const auto& m : members) {
    if (matches(rule, m)) out.push_back(m);
  }
  return out;
}

bool isComponentName(std::string_view name) {
  if (name.empty() || name.size() > 32 || name.front() < 'a' || name.front() > 'z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace workflows::firmware
