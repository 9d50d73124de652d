// Baselines: YAML and JSON read the same, shape errors name their field, validation against the
// profiles and packages that exist, one canonical form, and the diff between revisions.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "workflows/firmware/baseline.hpp"

namespace fw = workflows::firmware;
using nlohmann::json;

namespace {

const char* kYaml = R"(
name: dgx-h100-2026q4
description: fleet baseline
models:
  DGX H100:
    bmc:
      accepted: ["24.10.1", 24.09.17]
      target: {package: dgx-bmc, version: 24.10.1}
    gpu:
      match: {software_id: "0x2330"}
      accepted: [96.00.61.00.01]
)";

fw::BaselineFacts facts() {
  fw::BaselineFacts f;
  f.known_models = {"DGX H100", "PowerEdge R750"};
  f.package = [](const std::string& name, const std::string& version) {
    if (name == "dgx-bmc" && (version == "24.10.1" || version == "24.11.2")) {
      return std::optional<fw::PackageFacts>(
          fw::PackageFacts{name, version, "bmc", {"DGX H100"}, fw::ComponentRule{"", "BMC"}});
    }
    if (name == "r750-bios" && version == "2.19.1") {
      return std::optional<fw::PackageFacts>(
          fw::PackageFacts{name, version, "bios", {}, fw::ComponentRule{"", "BIOS"}});
    }
    return std::optional<fw::PackageFacts>();
  };
  return f;
}

fw::Baseline parsed(const std::string& text) {
  auto doc = fw::baselineDocument(text);
  REQUIRE(doc);
  auto b = fw::parseBaseline(*doc);
  INFO((b ? std::string() : b.error().message));
  REQUIRE(b);
  return *b;
}

fw::Baseline validated(const std::string& text) {
  auto v = fw::validateBaseline(parsed(text), facts());
  INFO((v ? std::string() : v.error().message));
  REQUIRE(v);
  return *v;
}

common::Error parseError(const json& doc) {
  auto b = fw::parseBaseline(doc);
  REQUIRE_FALSE(b);
  return b.error();
}

common::Error validateError(const json& doc) {
  auto b = fw::parseBaseline(doc);
  REQUIRE(b);
  auto v = fw::validateBaseline(*b, facts());
  REQUIRE_FALSE(v);
  return v.error();
}

json good() {
  return {
      {"name", "b1"},
      {"models",
       {{"DGX H100", {{"bmc", {{"target", {{"package", "dgx-bmc"}, {"version", "24.10.1"}}}}}}}}}};
}

}  // namespace

TEST_CASE("A YAML baseline keeps versions as text and validates into canonical form",
          "[unit][firmware][baseline]") {
  const auto b = validated(kYaml);
  CHECK(b.name == "dgx-h100-2026q4");
  REQUIRE(b.models.size() == 1);
  const auto& m = b.models[0];
  REQUIRE(m.components.size() == 2);
  const auto& bmc = m.components[0];
  CHECK(bmc.name == "bmc");
  CHECK(bmc.accepted == std::vector<std::string>{"24.09.17", "24.10.1"});
  REQUIRE(bmc.rule);
  CHECK(bmc.rule->pattern == "BMC");  // taken from the target package
  const auto& gpu = m.components[1];
  CHECK(gpu.rule->software_id == "0x2330");
  CHECK(gpu.accepted == std::vector<std::string>{"96.00.61.00.01"});
  CHECK_FALSE(gpu.target);
}

TEST_CASE("The same baseline as JSON, reordered, has the same canonical text",
          "[unit][firmware][baseline]") {
  const std::string json_text = R"({"models": {"DGX H100": {
      "gpu": {"accepted": ["96.00.61.00.01"], "match": {"software_id": "0x2330"}},
      "bmc": {"target": {"version": "24.10.1", "package": "dgx-bmc"},
              "accepted": ["24.09.17", "24.10.1", "24.09.17"]}}},
    "description": "fleet baseline", "name": "dgx-h100-2026q4"})";
  const auto a = validated(kYaml);
  const auto b = validated(json_text);
  CHECK(a == b);
  CHECK(fw::canonicalText(a) == fw::canonicalText(b));
  // The canonical form parses back to itself.
  auto again = fw::parseBaseline(fw::canonicalJson(a));
  REQUIRE(again);
  CHECK(*again == a);
}

TEST_CASE("Baseline shape errors name the field", "[unit][firmware][baseline]") {
  auto doc = good();
  doc.erase("name");
  CHECK(parseError(doc).field == "name");
  doc = good();
  doc["name"] = "Bad Name";
  CHECK(parseError(doc).field == "name");
  doc = good();
  doc["modles"] = json::object();
  CHECK(parseError(doc).field == "modles");
  doc = good();
  doc["models"]["DGX H100"]["bmc"]["target"].erase("version");
  CHECK(parseError(doc).field == "models.DGX H100.bmc.target.version");
  doc = good();
  doc["models"]["DGX H100"]["bmc"]["accepted"] = json::array({"1.0", 2});
  CHECK(parseError(doc).field == "models.DGX H100.bmc.accepted[1]");
  doc = good();
  doc["models"]["DGX H100"]["bmc"]["match"] = {{"regex", "x"}};
  auto rule = parseError(doc);
  CHECK(rule.code == "invalid_component_rule");
  CHECK(rule.field == "models.DGX H100.bmc.match");
  doc = good();
  doc["models"]["DGX H100"]["BMC!"] = {{"accepted", {"1"}}};
  CHECK(parseError(doc).field == "models.DGX H100.BMC!");
  doc = good();
  doc["models"]["DGX H100"]["bmc"] = json::object();
  CHECK(parseError(doc).field == "models.DGX H100.bmc");
  CHECK(fw::baselineDocument("name: [unclosed").error().code == "malformed_baseline");
  CHECK(fw::baselineDocument("- a\n- b\n").error().code == "invalid_body");
}

TEST_CASE("Validation refuses unknown models, missing packages and rule-less components",
          "[unit][firmware][baseline]") {
  auto doc = good();
  doc["models"]["DGX B200"] = doc["models"]["DGX H100"];
  auto model = validateError(doc);
  CHECK(model.code == "unknown_model");
  CHECK(model.field == "models.DGX B200");

  doc = good();
  doc["models"]["DGX H100"]["bmc"]["target"]["version"] = "9.9.9";
  auto missing = validateError(doc);
  CHECK(missing.code == "package_not_found");
  CHECK(missing.kind == common::ErrorKind::kNotFound);
  CHECK(missing.field == "models.DGX H100.bmc.target");

  doc = good();
  doc["models"]["DGX H100"]["bios"] = doc["models"]["DGX H100"]["bmc"];
  auto component = validateError(doc);
  CHECK(component.code == "package_component_mismatch");
  CHECK(component.field == "models.DGX H100.bios.target.package");

  doc = good();
  doc["models"]["PowerEdge R750"] = doc["models"]["DGX H100"];
  auto wrong_model = validateError(doc);
  CHECK(wrong_model.code == "package_model_mismatch");
  CHECK(wrong_model.field == "models.PowerEdge R750.bmc.target.package");

  doc = good();
  doc["models"]["DGX H100"]["nic"] = {{"accepted", {"22.39"}}};
  auto rule = validateError(doc);
  CHECK(rule.code == "invalid_component_rule");
  CHECK(rule.field == "models.DGX H100.nic.match");
}

TEST_CASE("The diff between revisions lists added, removed and changed components",
          "[unit][firmware][baseline]") {
  const auto first = validated(kYaml);
  const auto none = fw::diffBaselines(std::nullopt, first);
  REQUIRE(none.changes.size() == 2);
  CHECK(none.changes[0].change == "added");
  CHECK(fw::diffBaselines(first, first).empty());

  const auto second = validated(R"(
name: dgx-h100-2026q4
description: fleet baseline
models:
  DGX H100:
    bmc:
      accepted: [24.10.1]
      target: {package: dgx-bmc, version: 24.11.2}
    nvswitch:
      match: {pattern: NVSwitch}
      accepted: [1.2.3]
)");
  const auto diff = fw::diffBaselines(first, second);
  REQUIRE(diff.changes.size() == 3);
  CHECK(diff.changes[0].component == "bmc");
  CHECK(diff.changes[0].change == "changed");
  CHECK(diff.changes[0].from->target->version == "24.10.1");
  CHECK(diff.changes[0].to->target->version == "24.11.2");
  CHECK(diff.changes[1].component == "gpu");
  CHECK(diff.changes[1].change == "removed");
  CHECK(diff.changes[2].component == "nvswitch");
  CHECK(diff.changes[2].change == "added");
  const auto j = fw::toJson(diff);
  CHECK(j["changes"][0]["to"]["target"]["version"] == "24.11.2");
  CHECK(j["changes"][1]["to"].is_null());
}
