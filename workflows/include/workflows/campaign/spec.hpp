// A campaign as an operator writes it (POST /api/v1/campaigns), validated in one place: every
// error names the exact JSON path of the offending field ("caps.per_rack", "windows[1].time_zone").
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace workflows::campaign {

struct Selector {
  bool all = false;  // {"all": true}: every node (still narrowed by the other criteria)
  std::string site;
  std::vector<std::string> racks;
  std::string model;
  std::vector<std::string> states;  // default for a rollout: ["ready"]
  std::map<std::string, std::string> labels;
  std::vector<std::int64_t> nodes;
};

struct Canary {
  int count = 0;         // N nodes, or
  double percent = 0.0;  // P% of the selection (rounded up, at least 1)
};

// A wave size: a percentage of the nodes left after the canary, or "rest".
struct WaveSize {
  double percent = 0.0;
  bool rest = false;
};

struct Caps {
  int global = 0;                        // 0: unlimited
  int per_rack = 0;                      // 0: unlimited
  std::map<std::string, int> per_label;  // label key -> most in flight per value of that label
};

struct FailureBudget {
  std::optional<int> count;       // spent when failures > count
  std::optional<double> percent;  // spent when failures / started * 100 > percent
};

// A weekly window in a time zone: [start, end) on each of `days` (local time); end <= start spans
// midnight into the next day.
struct Window {
  std::vector<int> days;  // 0 = Sunday .. 6 = Saturday (the local day the window opens)
  int start_minute = 0;   // minutes after local midnight
  int end_minute = 0;
  std::string time_zone;  // IANA name, e.g. "Europe/Berlin"
};

struct Gate {
  double max_regression_percent = 3.0;
  std::vector<std::string> metrics;  // empty: every metric
};

struct CampaignSpec {
  std::string name;
  std::string kind;  // firmware | image
  std::string baseline_name;
  std::optional<int> baseline_revision;                  // nullopt: the latest when created
  std::string image_name, image_version, image_channel;  // a version, a channel, or both
  Selector selector;
  Canary canary;
  int bake_seconds = 0;
  std::vector<WaveSize> waves;
  Caps caps;
  FailureBudget failure_budget;
  std::vector<Window> windows;  // empty: always open
  bool quick_check = true;
  Gate gate;
  std::string description;  // free text for people
};

// InvalidArgument code "invalid_campaign", field = the JSON path.
common::Result<CampaignSpec> parseCampaignSpec(const nlohmann::json& body);
// The stored (canonical) form; parseCampaignSpec(toJson(s)) gives s back.
nlohmann::json toJson(const CampaignSpec& spec);
// The stored form as text (compact, keys sorted), and back: fromJson(toJsonText(s)) gives s.
// Malformed text is InvalidArgument "invalid_campaign" like any other bad spec.
std::string toJsonText(const CampaignSpec& spec);
common::Result<CampaignSpec> fromJson(std::string_view text);

}  // namespace workflows::campaign
