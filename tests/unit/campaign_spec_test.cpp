// The campaign spec: what is accepted, the defaults, the stored form, and every refusal naming
// its exact field.
#include <catch2/catch.hpp>

#include "workflows/campaign/spec.hpp"

using nlohmann::json;
using namespace workflows::campaign;

namespace {

json valid() {
  return json::parse(R"({
    "name": "bmc-q4", "kind": "firmware", "baseline": {"name": "dgx", "revision": 2},
    "selector": {"site": "sjc1", "rack": ["r01", "r02"], "labels": {"partition": "train"}},
    "canary": {"count": 2}, "bake_seconds": 600, "waves": [10, 50, "rest"],
    "caps": {"global": 200, "per_rack": 2, "per_label": {"pdu": 1, "nvlink_domain": 4}},
    "failure_budget": {"count": 3, "percent": 2.5},
    "windows": [{"days": ["sat", "sun"], "start": "22:00", "end": "06:00",
                 "time_zone": "Europe/Berlin"}],
    "gate": {"max_regression_percent": 3}})");
}

json image() {
  return json::parse(R"({"kind": "image", "image": {"name": "ubuntu-cuda", "version": "24.04.2"},
    "selector": {"all": true}, "caps": {"global": 10}})");
}

// The field of the refusal (and that it is one).
std::string fieldOf(const json& body) {
  auto parsed = parseCampaignSpec(body);
  if (parsed) return "(accepted)";
  CHECK(parsed.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(parsed.error().code == "invalid_campaign");
  CHECK(parsed.error().message.find(parsed.error().field) == 0);  // the message names it too
  return parsed.error().field;
}

// valid() with `path` (a JSON pointer) set to `value`.
json with(const std::string& pointer, json value) {
  json b = valid();
  b[json::json_pointer(pointer)] = std::move(value);
  return b;
}

json without(const std::string& key) {
  json b = valid();
  b.erase(key);
  return b;
}

}  // namespace

TEST_CASE("a full campaign spec parses", "[campaign]") {
  auto spec = parseCampaignSpec(valid());
  REQUIRE(spec);
  CHECK(spec->name == "bmc-q4");
  CHECK(spec->kind == "firmware");
  CHECK(spec->baseline_name == "dgx");
  CHECK(spec->baseline_revision == 2);
  CHECK(spec->selector.site == "sjc1");
  CHECK(spec->selector.racks == std::vector<std::string>{"r01", "r02"});
  CHECK(spec->selector.labels.at("partition") == "train");
  CHECK(spec->selector.states == std::vector<std::string>{"ready"});  // the default
  CHECK(spec->canary.count == 2);
  CHECK(spec->bake_seconds == 600);
  REQUIRE(spec->waves.size() == 3);
  CHECK(spec->waves[0].percent == 10);
  CHECK_FALSE(spec->waves[0].rest);
  CHECK(spec->waves[2].rest);
  CHECK(spec->caps.global == 200);
  CHECK(spec->caps.per_rack == 2);
  CHECK(spec->caps.per_label == std::map<std::string, int>{{"nvlink_domain", 4}, {"pdu", 1}});
  CHECK(spec->failure_budget.count == 3);
  CHECK(spec->failure_budget.percent == 2.5);
  REQUIRE(spec->windows.size() == 1);
  CHECK(spec->windows[0].days == std::vector<int>{6, 0});
  CHECK(spec->windows[0].start_minute == 22 * 60);
  CHECK(spec->windows[0].end_minute == 6 * 60);
  CHECK(spec->windows[0].time_zone == "Europe/Berlin");
  CHECK(spec->quick_check);  // the default
  CHECK(spec->gate.max_regression_percent == 3);
  CHECK(spec->gate.metrics.empty());
}

TEST_CASE("the defaults of a minimal spec", "[campaign]") {
  auto spec = parseCampaignSpec(json::parse(
      R"({"kind": "firmware", "baseline": "dgx", "selector": {"model": "DGXH100"},
          "caps": {"global": 5}})"));
  REQUIRE(spec);
  CHECK(spec->baseline_name == "dgx");
  CHECK_FALSE(spec->baseline_revision);
  CHECK(spec->canary.count == 1);
  CHECK(spec->bake_seconds == 0);
  REQUIRE(spec->waves.size() == 1);
  CHECK(spec->waves[0].rest);
  CHECK(spec->caps.per_rack == 0);
  CHECK(spec->failure_budget.count == 0);  // the first failure pauses
  CHECK_FALSE(spec->failure_budget.percent);
  CHECK(spec->windows.empty());  // always open
  CHECK(spec->quick_check);
  CHECK(spec->gate.max_regression_percent == 3.0);
}

TEST_CASE("image campaigns name a version or a channel", "[campaign]") {
  auto spec = parseCampaignSpec(image());
  REQUIRE(spec);
  CHECK(spec->kind == "image");
  CHECK(spec->image_name == "ubuntu-cuda");
  CHECK(spec->image_version == "24.04.2");
  CHECK(spec->selector.all);
  json channel = image();
  channel["image"] = {{"name", "ubuntu-cuda"}, {"channel", "stable"}};
  auto by_channel = parseCampaignSpec(channel);
  REQUIRE(by_channel);
  CHECK(by_channel->image_channel == "stable");
  json neither = image();
  neither["image"] = {{"name", "ubuntu-cuda"}};
  CHECK(fieldOf(neither) == "image");
  neither["image"] = {{"version", "1"}};
  CHECK(fieldOf(neither) == "image.name");
  json both_targets = image();
  both_targets["baseline"] = "dgx";
  CHECK(fieldOf(both_targets) == "baseline");
  CHECK(fieldOf(with("/image", {{"name", "x"}, {"version", "1"}})) == "image");
}

TEST_CASE("percent canaries, explicit nodes, selector forms", "[campaign]") {
  auto spec = parseCampaignSpec(with("/canary", {{"percent", 0.5}}));
  REQUIRE(spec);
  CHECK(spec->canary.count == 0);
  CHECK(spec->canary.percent == 0.5);
  spec = parseCampaignSpec(with("/selector", {{"nodes", {4, 9}}, {"state", {"in_service"}}}));
  REQUIRE(spec);
  CHECK(spec->selector.nodes == std::vector<std::int64_t>{4, 9});
  CHECK(spec->selector.states == std::vector<std::string>{"in_service"});
  spec = parseCampaignSpec(with("/selector", {{"rack", "r07"}}));
  REQUIRE(spec);
  CHECK(spec->selector.racks == std::vector<std::string>{"r07"});
  CHECK(parseCampaignSpec(with("/selector", {{"all", true}})));
  CHECK(parseCampaignSpec(with("/waves", {100})));
  CHECK(parseCampaignSpec(with("/windows", json::array())));
}

TEST_CASE("the stored form round-trips, as JSON and as text", "[campaign]") {
  for (const json& body : {valid(), image(), with("/canary", {{"percent", 5}}),
                           with("/failure_budget", {{"percent", 10}})}) {
    auto spec = parseCampaignSpec(body);
    REQUIRE(spec);
    auto again = parseCampaignSpec(toJson(*spec));
    REQUIRE(again);
    CHECK(toJson(*again) == toJson(*spec));
    const std::string text = toJsonText(*spec);
    auto from_text = fromJson(text);
    REQUIRE(from_text);
    CHECK(toJsonText(*from_text) == text);
    CHECK(from_text->windows.size() == spec->windows.size());
    CHECK(from_text->caps.per_label == spec->caps.per_label);
    CHECK(from_text->failure_budget.percent == spec->failure_budget.percent);
  }
  auto bad = fromJson("{not json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "invalid_campaign");
}

TEST_CASE("bad campaign input names the exact field", "[campaign]") {
  // The top level.
  CHECK(fieldOf(json::array()) == "");
  CHECK(fieldOf(with("/colour", "blue")) == "colour");
  CHECK(fieldOf(without("kind")) == "kind");
  CHECK(fieldOf(with("/kind", "bios")) == "kind");
  CHECK(fieldOf(with("/kind", 3)) == "kind");
  CHECK(fieldOf(with("/name", 3)) == "name");
  CHECK(fieldOf(without("baseline")) == "baseline");
  CHECK(fieldOf(with("/baseline", {{"revision", 2}})) == "baseline.name");
  CHECK(fieldOf(with("/baseline/revision", 0)) == "baseline.revision");
  CHECK(fieldOf(with("/baseline/tag", "x")) == "baseline.tag");
  CHECK(fieldOf(with("/quick_check", "yes")) == "quick_check");
  CHECK(fieldOf(with("/bake_seconds", -1)) == "bake_seconds");
  CHECK(fieldOf(with("/bake_seconds", 1.5)) == "bake_seconds");
  // The selector.
  CHECK(fieldOf(without("selector")) == "selector");
  CHECK(fieldOf(with("/selector", json::object())) == "selector");
  CHECK(fieldOf(with("/selector", {{"all", false}})) == "selector");
  CHECK(fieldOf(with("/selector/colour", "x")) == "selector.colour");
  CHECK(fieldOf(with("/selector/rack", {"r01", 7})) == "selector.rack[1]");
  CHECK(fieldOf(with("/selector/nodes", {1, -2})) == "selector.nodes[1]");
  CHECK(fieldOf(with("/selector/labels", {{"pdu", 3}})) == "selector.labels.pdu");
  CHECK(fieldOf(with("/selector/site", json::array())) == "selector.site");
  // The canary.
  CHECK(fieldOf(with("/canary", {{"count", 0}})) == "canary.count");
  CHECK(fieldOf(with("/canary", {{"count", -3}})) == "canary.count");
  CHECK(fieldOf(with("/canary", {{"percent", 0}})) == "canary.percent");
  CHECK(fieldOf(with("/canary", {{"percent", 101}})) == "canary.percent");
  CHECK(fieldOf(with("/canary", {{"count", 1}, {"percent", 5}})) == "canary");
  CHECK(fieldOf(with("/canary", json::object())) == "canary");
  CHECK(fieldOf(with("/canary", 3)) == "canary");
  // The waves.
  CHECK(fieldOf(with("/waves", {10, -1, "rest"})) == "waves[1]");
  CHECK(fieldOf(with("/waves", {10, 50, 0})) == "waves[2]");
  CHECK(fieldOf(with("/waves", {10, 101})) == "waves[1]");
  CHECK(fieldOf(with("/waves", {"rest", 10})) == "waves[0]");
  CHECK(fieldOf(with("/waves", {10, "all"})) == "waves[1]");
  CHECK(fieldOf(with("/waves", json::array())) == "waves");
  // The caps.
  CHECK(fieldOf(without("caps")) == "caps");
  CHECK(fieldOf(with("/caps", {{"per_rack", 2}})) == "caps.global");
  CHECK(fieldOf(with("/caps/global", 0)) == "caps.global");
  CHECK(fieldOf(with("/caps/global", -5)) == "caps.global");
  CHECK(fieldOf(with("/caps/per_rack", 0)) == "caps.per_rack");
  CHECK(fieldOf(with("/caps/per_rack", -1)) == "caps.per_rack");
  CHECK(fieldOf(with("/caps/per_label/pdu", 0)) == "caps.per_label.pdu");
  CHECK(fieldOf(with("/caps/per_label/leaf_switch", -2)) == "caps.per_label.leaf_switch");
  CHECK(fieldOf(with("/caps/per_label", 3)) == "caps.per_label");
  CHECK(fieldOf(with("/caps/per_host", 1)) == "caps.per_host");
  // The failure budget.
  CHECK(fieldOf(with("/failure_budget", json::object())) == "failure_budget");
  CHECK(fieldOf(with("/failure_budget", {{"percent", 150}})) == "failure_budget.percent");
  CHECK(fieldOf(with("/failure_budget", {{"count", -1}})) == "failure_budget.count");
  CHECK(fieldOf(with("/failure_budget/ratio", 1)) == "failure_budget.ratio");
  // The windows.
  CHECK(fieldOf(with("/windows", "weekends")) == "windows");
  CHECK(fieldOf(with("/windows/0/time_zone", "Mars/Olympus")) == "windows[0].time_zone");
  CHECK(fieldOf(with("/windows/0/start", "25:00")) == "windows[0].start");
  CHECK(fieldOf(with("/windows/0/start", "24:00")) == "windows[0].start");
  CHECK(fieldOf(with("/windows/0/start", "7:00")) == "windows[0].start");
  CHECK(fieldOf(with("/windows/0/end", "06:60")) == "windows[0].end");
  CHECK(fieldOf(with("/windows/0/end", "22:00")) == "windows[0].end");  // == start
  CHECK(fieldOf(with("/windows/0/days", {"sat", "someday"})) == "windows[0].days[1]");
  CHECK(fieldOf(with("/windows/0/days", {"sat", "sat"})) == "windows[0].days[1]");
  CHECK(fieldOf(with("/windows/0/days", json::array())) == "windows[0].days");
  CHECK(fieldOf(with("/windows/0/weeks", 2)) == "windows[0].weeks");
  json no_zone = valid();
  no_zone["windows"][0].erase("time_zone");
  CHECK(fieldOf(no_zone) == "windows[0].time_zone");
  json no_start = valid();
  no_start["windows"][0].erase("start");
  CHECK(fieldOf(no_start) == "windows[0].start");
  json overlap = valid();  // inside the Saturday-night window
  overlap["windows"].push_back(
      {{"days", {"sun"}}, {"start", "03:00"}, {"end", "04:00"}, {"time_zone", "Europe/Berlin"}});
  CHECK(fieldOf(overlap) == "windows[1]");
  json bad_second = valid();
  bad_second["windows"].push_back(
      {{"days", {"wed"}}, {"start", "02:00"}, {"end", "04:00"}, {"time_zone", "Europe/Narnia"}});
  CHECK(fieldOf(bad_second) == "windows[1].time_zone");
  // The gate.
  CHECK(fieldOf(with("/gate/max_regression_percent", 0)) == "gate.max_regression_percent");
  CHECK(fieldOf(with("/gate/max_regression_percent", "3")) == "gate.max_regression_percent");
  CHECK(fieldOf(with("/gate/metrics", {"compute", 5})) == "gate.metrics[1]");
  CHECK(fieldOf(with("/gate/p_value", 0.05)) == "gate.p_value");
}

TEST_CASE("windows in different zones that do not overlap are accepted", "[campaign]") {
  json b = valid();
  b["windows"].push_back({{"days", {"wed"}},
                          {"start", "02:00"},
                          {"end", "04:00"},
                          {"time_zone", "America/Los_Angeles"}});
  auto spec = parseCampaignSpec(b);
  REQUIRE(spec);
  CHECK(spec->windows.size() == 2);
  CHECK(parseCampaignSpec(with("/windows/0/end", "24:00")));
}
