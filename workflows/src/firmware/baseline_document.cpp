// YAML or JSON text -> the baseline document as JSON, never throwing, with limits.
#include <cctype>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "workflows/firmware/baseline.hpp"

namespace workflows::firmware {
namespace {

using nlohmann::json;

constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxNodes = 100000;  // anchors and aliases cannot blow this up

common::Error malformed(const std::string& message) {
  return common::invalidArgument("malformed_baseline", message, "");
}

struct YamlConverter {
  std::size_t nodes = 0;

  common::Result<json> convert(const YAML::Node& node, int depth) {
    if (++nodes > kMaxNodes) return common::fail(malformed("the document is too large"));
    if (depth > kMaxDepth) return common::fail(malformed("the document nests too deeply"));
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return json(nullptr);
      case YAML::NodeType::Scalar:
        return json(node.Scalar());
      case YAML::NodeType::Sequence: {
        json out = json::array();
        for (const auto& item : node) {
          PROV_ASSIGN(auto value, convert(item, depth + 1));
          out.push_back(std::move(value));
        }
        return out;
      }
      case YAML::NodeType::Map: {
        json out = json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) return common::fail(malformed("a key is not a scalar"));
          const std::string key = entry.first.Scalar();
          if (out.contains(key)) return common::fail(malformed("the key '" + key + "' repeats"));
          PROV_ASSIGN(auto value, convert(entry.second, depth + 1));
          out[key] = std::move(value);
        }
        return out;
      }
    }
    return json(nullptr);
  }
};

bool looksLikeJson(const std::string& text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) continue;
    return c == '{';
  }
  return false;
}

common::Result<json> fromJson(const std::string& text) {
  try {
    json doc = json::parse(text);
    return doc;
  } catch (const json::parse_error& e) {
    return common::fail(malformed(std::string("the baseline is not valid JSON: ") + e.what()));
  }
}

common::Result<json> fromYaml(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return common::fail(malformed("the baseline is not valid YAML (line " +
                                  std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1) + "): " + e.msg));
  }
  try {
    YamlConverter converter;
    return converter.convert(root, 0);
  } catch (const YAML::Exception& e) {
    return common::fail(malformed("the baseline is not valid YAML: " + e.msg));
  }
}

}  // namespace

common::Result<json> baselineDocument(const std::string& text) {
  PROV_ASSIGN(json doc, looksLikeJson(text) ? fromJson(text) : fromYaml(text));
  if (!doc.is_object()) {
    return common::fail(common::invalidArgument(
        "invalid_body", "a baseline document is an object with name and models", ""));
  }
  return doc;
}

}  // namespace workflows::firmware
