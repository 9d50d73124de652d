// Baselines as files: apply shows the diff, is idempotent (the same file twice makes one
// revision), dry runs store nothing, bad documents are a 4xx naming the field with nothing
// stored, revisions are kept with their history, and hardware profiles name a baseline.
#include <catch2/catch.hpp>

#include "integration/firmware_test_support.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

void seed(ServiceFixture& svc) {
  testing::putProfile(svc, "dgx-h100", "DGX H100");
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "bmc-24.10.1") == 201);
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.11.2", "bmc", "bmc-24.11.2") == 201);
}

}  // namespace

TEST_CASE("Applying the same baseline twice creates one revision", "[integration][api][baselines]") {
  ServiceFixture svc;
  seed(svc);
  auto first = testing::applyBaseline(svc, testing::baselineYaml());
  INFO(first.body);
  REQUIRE(first.status == 201);
  auto a = first.json();
  CHECK(a["status"] == "created");
  CHECK(a["revision"] == 1);
  CHECK(a["previous_revision"].is_null());
  REQUIRE(a["diff"]["changes"].size() == 2);
  CHECK(a["diff"]["changes"][0]["change"] == "added");

  auto again = testing::applyBaseline(svc, testing::baselineYaml());
  REQUIRE(again.status == 200);
  CHECK(again.json()["status"] == "unchanged");
  CHECK(again.json()["revision"] == 1);
  CHECK(again.json()["diff"]["changes"].empty());

  // The same content as JSON, keys reordered: still unchanged.
  json doc = {{"models",
               {{"DGX H100",
                 {{"gpu", {{"accepted", {"96.00.61"}}, {"match", {{"software_id", "0x2330"}}}}},
                  {"bmc",
                   {{"target", {{"version", "24.10.1"}, {"package", "dgx-bmc"}}},
                    {"accepted", {"24.10.1", "24.09.17"}}}}}}}},
              {"name", "dgx-h100-2026q4"}};
  auto as_json = svc.sendJson("POST", "/api/v1/baselines", doc, "operator");
  REQUIRE(as_json.status == 200);
  CHECK(as_json.json()["status"] == "unchanged");

  auto history = svc.get("/api/v1/baselines/dgx-h100-2026q4/revisions", "viewer").json();
  CHECK(history["items"].size() == 1);
}

TEST_CASE("A changed baseline is a new revision with the diff; old revisions stay",
          "[integration][api][baselines]") {
  ServiceFixture svc;
  seed(svc);
  REQUIRE(testing::applyBaseline(svc, testing::baselineYaml()).status == 201);

  auto dry = testing::applyBaseline(svc, testing::baselineYaml("24.11.2"), true);
  REQUIRE(dry.status == 200);
  CHECK(dry.json()["status"] == "would_create");
  CHECK(dry.json()["revision"] == 2);
  REQUIRE(dry.json()["diff"]["changes"].size() == 1);
  CHECK(svc.get("/api/v1/baselines/dgx-h100-2026q4", "viewer").json()["revision"] == 1);

  auto second = testing::applyBaseline(svc, testing::baselineYaml("24.11.2"));
  REQUIRE(second.status == 201);
  const auto change = second.json()["diff"]["changes"][0];
  CHECK(change["model"] == "DGX H100");
  CHECK(change["component"] == "bmc");
  CHECK(change["change"] == "changed");
  CHECK(change["from"]["target"]["version"] == "24.10.1");
  CHECK(change["to"]["target"]["version"] == "24.11.2");

  auto latest = svc.get("/api/v1/baselines/dgx-h100-2026q4", "viewer").json();
  CHECK(latest["revision"] == 2);
  CHECK(latest["author"] == "test-operator");
  CHECK(latest["digest"].get<std::string>().size() == 64);
  CHECK(latest["content"]["models"]["DGX H100"]["bmc"]["match"] == json{{"pattern", "BMC"}});
  auto first = svc.get("/api/v1/baselines/dgx-h100-2026q4/revisions/1", "viewer").json();
  CHECK(first["content"]["models"]["DGX H100"]["bmc"]["target"]["version"] == "24.10.1");
  CHECK(svc.get("/api/v1/baselines/dgx-h100-2026q4/revisions/3", "viewer").status == 404);
  CHECK(svc.get("/api/v1/baselines/nope", "viewer").status == 404);

  auto history = svc.get("/api/v1/baselines/dgx-h100-2026q4/revisions", "viewer").json();
  REQUIRE(history["items"].size() == 2);
  CHECK(history["items"][1]["diff"]["changes"][0]["change"] == "changed");
  auto list = svc.get("/api/v1/baselines", "viewer").json();
  REQUIRE(list["items"].size() == 1);
  CHECK(list["items"][0]["latest_revision"] == 2);
}

TEST_CASE("A dry run of a new baseline stores nothing", "[integration][api][baselines]") {
  ServiceFixture svc;
  seed(svc);
  auto dry = testing::applyBaseline(svc, testing::baselineYaml(), true);
  REQUIRE(dry.status == 200);
  CHECK(dry.json()["status"] == "would_create");
  CHECK(dry.json()["revision"] == 1);
  CHECK(svc.get("/api/v1/baselines/dgx-h100-2026q4", "viewer").status == 404);
  CHECK(svc.get("/api/v1/baselines", "viewer").json()["items"].empty());
}

TEST_CASE("Bad baselines are a 4xx naming the field and store nothing",
          "[integration][api][baselines]") {
  ServiceFixture svc;
  seed(svc);
  auto refused = [&](const std::string& yaml, int status, const std::string& code) {
    auto r = testing::applyBaseline(svc, yaml);
    INFO(r.body);
    CHECK(r.status == status);
    CHECK(r.json()["code"] == code);
    return r.json().value("field", "");
  };
  const std::string base = testing::baselineYaml();
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK(refused(replaced("DGX H100", "DGX B200"), 400, "unknown_model") == "models.DGX B200");
  CHECK(refused(replaced("{software_id: \"0x2330\"}", "{regex: \"x\"}"), 400,
                "invalid_component_rule") == "models.DGX H100.gpu.match");
  CHECK(refused(testing::baselineYaml("9.9.9"), 404, "package_not_found") ==
        "models.DGX H100.bmc.target");
  CHECK(refused(replaced("accepted: [24.09.17]", "acepted: [24.09.17]"), 400,
                "invalid_baseline") == "models.DGX H100.bmc.acepted");
  CHECK(refused(replaced("    gpu:\n      match: {software_id: \"0x2330\"}\n",
                         "    nic:\n"),
                400, "invalid_component_rule") == "models.DGX H100.nic.match");
  refused("name: [unclosed", 400, "malformed_baseline");
  CHECK(svc.get("/api/v1/baselines", "viewer").json()["items"].empty());
  CHECK(svc.send("POST", "/api/v1/baselines", base, "viewer", "application/yaml").status == 403);
  CHECK(svc.send("POST", "/api/v1/baselines?dry_run=maybe", base, "operator", "application/yaml")
            .json()["field"] == "dry_run");
}

TEST_CASE("A hardware profile names an existing baseline", "[integration][api][baselines]") {
  ServiceFixture svc;
  seed(svc);
  auto missing = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100",
                              {{"model", "DGX H100"}, {"channel", "stable"}, {"baseline", "nope"}},
                              "operator");
  CHECK(missing.status == 404);
  CHECK(missing.json()["field"] == "baseline");
  REQUIRE(testing::applyBaseline(svc, testing::baselineYaml()).status == 201);
  testing::putProfile(svc, "dgx-h100", "DGX H100", "dgx-h100-2026q4");
  CHECK(svc.get("/api/v1/hardware-profiles/dgx-h100", "viewer").json()["baseline"] ==
        "dgx-h100-2026q4");
}
