#include "firmware_test_support.hpp"

#include <catch2/catch.hpp>

#include "common/secret_box.hpp"

namespace testing {

void putProfile(ServiceFixture& svc, const std::string& name, const std::string& model,
                const std::string& baseline) {
  nlohmann::json body = {{"model", model}, {"channel", "stable"}};
  if (!baseline.empty()) body["baseline"] = baseline;
  auto put = svc.sendJson("PUT", "/api/v1/hardware-profiles/" + name, body, "operator");
  INFO(put.body);
  REQUIRE(put.status == 200);
}

nlohmann::json packageBody(const std::string& name, const std::string& version,
                           const std::string& component, const std::string& sha256) {
  return {{"name", name},
          {"version", version},
          {"vendor", "NVIDIA"},
          {"models", {"DGX H100"}},
          {"component", component},
          {"match", {{"pattern", component == "bmc" ? "BMC" : component}}},
          {"sha256", sha256},
          {"install_method", "simple_update"},
          {"apply", "on_reset"},
          {"min_from_version", "24.01.1"},
          {"allow_downgrade", false},
          {"estimated_seconds", 900}};
}

int registerPackage(ServiceFixture& svc, const std::string& name, const std::string& version,
                    const std::string& component, const std::string& bytes) {
  const std::string digest = common::sha256Hex(bytes);
  auto put = svc.send("PUT", "/api/v1/artifacts/" + digest, bytes, "operator",
                      "application/octet-stream");
  REQUIRE((put.status == 201 || put.status == 200));
  auto post = svc.sendJson("POST", "/api/v1/firmware/packages",
                           packageBody(name, version, component, digest), "operator");
  INFO(post.body);
  return post.status;
}

std::string baselineYaml(const std::string& bmc_target) {
  return "name: dgx-h100-2026q4\n"
         "models:\n"
         "  DGX H100:\n"
         "    bmc:\n"
         "      accepted: [24.09.17]\n"
         "      target: {package: dgx-bmc, version: " +
         bmc_target +
         "}\n"
         "    gpu:\n"
         "      match: {software_id: \"0x2330\"}\n"
         "      accepted: [96.00.61]\n";
}

HttpResult applyBaseline(ServiceFixture& svc, const std::string& yaml, bool dry_run) {
  return svc.send("POST", std::string("/api/v1/baselines") + (dry_run ? "?dry_run=true" : ""),
                  yaml, "operator", "application/yaml");
}

}  // namespace testing
