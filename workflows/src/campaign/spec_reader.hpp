// Reading one JSON object of a campaign spec with errors that name the exact path (private).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace workflows::campaign {

class Reader {
 public:
  Reader(const nlohmann::json& object, std::string path) : j_(object), path_(std::move(path)) {}

  bool has(const std::string& key) const { return j_.contains(key) && !j_[key].is_null(); }
  const nlohmann::json& at(const std::string& key) const { return j_[key]; }
  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  common::Error error(const std::string& key, const std::string& why) const {
    return errorAt(path(key), why);
  }
  common::Error errorAt(const std::string& full_path, const std::string& why) const {
    return common::invalidArgument("invalid_campaign", full_path + " " + why, full_path);
  }

  common::Result<void> onlyKeys(const std::set<std::string>& allowed) const;
  common::Result<std::string> text(const std::string& key, const std::string& fallback) const;
  common::Result<bool> boolean(const std::string& key, bool fallback) const;
  common::Result<std::int64_t> integer(const std::string& key, std::int64_t fallback,
                                       std::int64_t min, std::int64_t max) const;
  // min < value <= max when `exclusive_min`, else min <= value <= max.
  common::Result<double> number(const std::string& key, double fallback, double min, double max,
                                bool exclusive_min) const;
  // A string or a list of strings; missing: empty.
  common::Result<std::vector<std::string>> texts(const std::string& key) const;
  common::Result<std::map<std::string, std::string>> textMap(const std::string& key) const;
  common::Result<std::vector<std::int64_t>> ids(const std::string& key) const;

 private:
  const nlohmann::json& j_;
  std::string path_;
};

}  // namespace workflows::campaign
