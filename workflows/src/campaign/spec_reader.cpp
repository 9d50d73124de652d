#include "spec_reader.hpp"

#include <cmath>

namespace workflows::campaign {

common::Result<void> Reader::onlyKeys(const std::set<std::string>& allowed) const {
  for (const auto& [key, value] : j_.items()) {
    (void)value;
    if (allowed.count(key) == 0) return common::fail(error(key, "is not a known field"));
  }
  return common::success();
}

common::Result<std::string> Reader::text(const std::string& key,
                                         const std::string& fallback) const {
  if (!has(key)) return fallback;
  if (!j_[key].is_string()) return common::fail(error(key, "must be a string"));
  return j_[key].get<std::string>();
}

common::Result<bool> Reader::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  if (!j_[key].is_boolean()) return common::fail(error(key, "must be true or false"));
  return j_[key].get<bool>();
}

common::Result<std::int64_t> Reader::integer(const std::string& key, std::int64_t fallback,
                                             std::int64_t min, std::int64_t max) const {
  if (!has(key)) return fallback;
  const auto& v = j_[key];
  if (!v.is_number_integer()) return common::fail(error(key, "must be a whole number"));
  const auto n = v.get<std::int64_t>();
  if (n < min || n > max) {
    return common::fail(error(key, "must be from " + std::to_string(min) + " to " +
                                       std::to_string(max) + ", not " + std::to_string(n)));
  }
  return n;
}

common::Result<double> Reader::number(const std::string& key, double fallback, double min,
                                      double max, bool exclusive_min) const {
  if (!has(key)) return fallback;
  const auto& v = j_[key];
  if (!v.is_number()) return common::fail(error(key, "must be a number"));
  const double d = v.get<double>();
  const bool low = exclusive_min ? d <= min : d < min;
  if (!std::isfinite(d) || low || d > max) {
    return common::fail(
        error(key, std::string("must be ") + (exclusive_min ? "above " : "at least ") +
                       std::to_string(min) + " and at most " + std::to_string(max)));
  }
  return d;
}

common::Result<std::vector<std::string>> Reader::texts(const std::string& key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const auto& v = j_[key];
  if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
  if (!v.is_array()) return common::fail(error(key, "must be a string or a list of strings"));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty()) {
      return common::fail(
          errorAt(path(key) + "[" + std::to_string(i) + "]", "must be a non-empty string"));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

common::Result<std::map<std::string, std::string>> Reader::textMap(const std::string& key) const {
  std::map<std::string, std::string> out;
  if (!has(key)) return out;
  const auto& v = j_[key];
  if (!v.is_object()) return common::fail(error(key, "must map names to strings"));
  for (const auto& [k, value] : v.items()) {
    if (!value.is_string()) return common::fail(errorAt(path(key) + "." + k, "must be a string"));
    out[k] = value.get<std::string>();
  }
  return out;
}

common::Result<std::vector<std::int64_t>> Reader::ids(const std::string& key) const {
  std::vector<std::int64_t> out;
  if (!has(key)) return out;
  const auto& v = j_[key];
  if (!v.is_array()) return common::fail(error(key, "must be a list of node ids"));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<std::int64_t>() < 1) {
      return common::fail(errorAt(path(key) + "[" + std::to_string(i) + "]",
                                  "must be a node id (a positive whole number)"));
    }
    out.push_back(v[i].get<std::int64_t>());
  }
  return out;
}

}  // namespace workflows::campaign
