#include "provisioner/cli/json_fields.hpp"

#include <sstream>

namespace provisioner::cli {

using nlohmann::json;

std::string scalarText(const json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>();
  if (value.is_null() || value.is_discarded()) return "";
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  // Numbers, and objects or arrays where a scalar was expected, print as compact JSON.
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string text(const json& object, std::string_view key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it == object.end() ? "" : scalarText(*it);
}

const json& arrayField(const json& object, std::string_view key) {
  static const json kEmpty = json::array();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

std::string fixed(const json& object, std::string_view key, int decimals) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return text(object, key);
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << it->get<double>();
  return out.str();
}

const json& objectField(const json& object, std::string_view key) {
  static const json kEmpty = json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

}  // namespace provisioner::cli
