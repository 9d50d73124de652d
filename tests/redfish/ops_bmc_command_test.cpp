// `provisioner bmc inventory` over a recorded BMC: JSON on stdout, errors on stderr, exit codes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "redfish/support/mockup_client.hpp"
#include "service/bmc_command.hpp"

using provisioner::service::BmcConnectOptions;
using provisioner::service::runBmcCommand;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;

namespace {

struct Run {
  int code;
  std::string out, err;
  BmcConnectOptions seen;
};

Run run(std::vector<std::string> args, const std::string& dump = "supermicro",
        std::function<void(MockupClient&)> setup = {}) {
  std::ostringstream out, err;
  Run result{};
  result.code = runBmcCommand(std::move(args), out, err, [&](const BmcConnectOptions& options) {
    result.seen = options;
    auto client = std::make_shared<MockupClient>(mockupDir(dump));
    if (setup) setup(*client);
    return client;
  });
  result.out = out.str();
  result.err = err.str();
  return result;
}

const std::vector<std::string> kGood = {"inventory",  "--url",     "https://10.0.0.5",
                                        "--username", "root",      "--password",
                                        "s3cret-pw",  "--insecure"};

}  // namespace

TEST_CASE("bmc inventory prints the inventory JSON", "[ops][cli]") {
  auto result = run(kGood);
  REQUIRE(result.code == 0);
  CHECK(result.err.empty());
  CHECK(result.seen.insecure);
  auto json = nlohmann::json::parse(result.out);
  CHECK(json["systems"][0]["serial_number"] == "S889914X3710910");
  CHECK(json["systems"][0]["power_state"] == "On");
  CHECK(json["systems"][0]["processors"][0]["type"] == "CPU");
  CHECK(json["firmware"].size() == 106);
  CHECK(json["gpus"].size() == 8);
  bool gpuLink = false;
  for (const auto& device : json["pcie_devices"]) {
    if (device["id"] == "GPU1") {
      gpuLink = device["current_link_width"] == 16 && device["max_generation"] == "Gen5";
    }
  }
  CHECK(gpuLink);
  CHECK(result.out.find("s3cret-pw") == std::string::npos);
}

TEST_CASE("bmc inventory bad flags exit 2", "[ops][cli]") {
  CHECK(run({"inventory", "--url", "10.0.0.5", "--username", "u", "--password", "p"}).code == 2);
  CHECK(run({"inventory", "--url", "https://h", "--password", "p"}).code == 2);
  CHECK(run({"inventory", "--url", "https://h", "--username", "u", "--password", "p", "--insecure",
             "--pin", std::string(64, 'a')})
            .code == 2);
  CHECK(
      run({"inventory", "--url", "https://h", "--username", "u", "--password", "p", "--pin", "xyz"})
          .code == 2);
  CHECK(run({"inventory", "--bogus"}).code == 2);
  CHECK(run({"explode"}).code == 2);
  auto pinned = run({"inventory", "--url", "https://h", "--username", "u", "--password", "p",
                     "--pin", "AB:" + std::string(62, 'c')});
  CHECK(pinned.code == 0);
  CHECK(pinned.seen.pinSha256 == "ab" + std::string(62, 'c'));
}

TEST_CASE("bmc inventory of a failing BMC exits 1 with the reason", "[ops][cli]") {
  auto result = run(kGood, "dell", [](MockupClient& client) {
    client.script(redfish::Method::kGet, "/redfish/v1",
                  redfish::testing::redfishError(401, "Base.1.8.NoValidSession", "Log in first"));
  });
  CHECK(result.code == 1);
  CHECK(result.out.empty());
  CHECK(result.err.find("HTTP 401") != std::string::npos);
  CHECK(result.err.find("bmc_http_error") != std::string::npos);
  CHECK(result.err.find("s3cret-pw") == std::string::npos);
}
