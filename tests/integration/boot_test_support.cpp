#include "boot_test_support.hpp"

#include <regex>

#include <catch2/catch.hpp>

#include "image_test_support.hpp"

namespace testing {

long long makeBootNode(ServiceFixture& svc, const std::string& serial, const std::string& mac) {
  auto r = svc.sendJson("POST", "/api/v1/nodes",
                        {{"chassis_serial", serial}, {"hardware_model", kDgxModel}}, "asset");
  REQUIRE(r.status == 201);
  const long long id = r.json()["id"];
  auto macs = svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(id) + "/boot-macs",
                           {{"macs", {mac}}}, "asset");
  REQUIRE(macs.status == 200);
  return id;
}

agent::BurnInPlan quickPlan() {
  agent::BurnInPlan plan = agent::defaultBurnInPlan();
  for (auto& test : plan.tests) test.duration_s = 1;
  plan.expected_gpus = 8;
  return plan;
}

void prepareCatalog(ServiceFixture& svc) {
  REQUIRE(registerImage(svc, makeImage("burnin", "7.1")) == 201);
  REQUIRE(svc.sendJson("POST", "/api/v1/channels/stable/promote",
                       {{"image", "burnin"}, {"version", "7.1"}}, "operator")
              .status == 200);
  auto profile = svc.sendJson("PUT", "/api/v1/hardware-profiles/dgx-h100",
                              {{"model", kDgxModel},
                               {"channel", "stable"},
                               {"expected_gpus", 8},
                               {"burn_in_plan", agent::toJson(quickPlan())}},
                              "operator");
  REQUIRE(profile.status == 200);
}

long long startBurnIn(ServiceFixture& svc, long long node, const std::string& batch) {
  auto task = svc.sendJson("POST", "/api/v1/nodes/" + std::to_string(node) + "/burn-in",
                           {{"batch", batch}}, "operator");
  REQUIRE(task.status == 201);
  return task.json()["id"];
}

HttpResult bootScript(ServiceFixture& svc, const std::string& mac) {
  return svc.anonymous("GET", "/boot/ipxe?mac=" + mac);
}

std::string tokenIn(const std::string& script) {
  std::smatch m;
  REQUIRE(std::regex_search(script, m, std::regex(R"(provisioner\.token=(\S+))")));
  return m[1];
}

httplib::Headers bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

}  // namespace testing
