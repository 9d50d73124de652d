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
  bool connected = false;
};

Run run(std::vector<std::string> args, const std::string& dump = "supermicro",
        std::function<void(MockupClient&)> setup = {}) {
  std::ostringstream out, err;
  Run result{};
  result.code = runBmcCommand(std::move(args), out, err, [&](const BmcConnectOptions& options) {
    result.seen = options;
    result.connected = true;
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

// kGood for another subcommand, with its own flags after the connection flags.
std::vector<std::string> good(const std::string& command, std::vector<std::string> flags = {}) {
  std::vector<std::string> args = kGood;
  args[0] = command;
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

// Exit 2, `problem` on stderr, the BMC never contacted and the password never printed.
void refusedUsage(std::vector<std::string> args, const std::string& problem) {
  INFO(problem);
  auto result = run(std::move(args));
  CHECK(result.code == 2);
  CHECK_FALSE(result.connected);
  CHECK(result.out.empty());
  CHECK(result.err.find("error: " + problem) != std::string::npos);
  CHECK(result.err.find("usage: provisioner bmc") != std::string::npos);
  CHECK(result.err.find("s3cret-pw") == std::string::npos);
}

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

TEST_CASE("bmc subcommands refuse bad usage with exit 2 before contacting the BMC", "[ops][cli]") {
  refusedUsage(good("power", {"--bogus"}), "unknown flag --bogus for bmc power");
  refusedUsage(good("power", {"--image-uri", "http://x/fw.bin"}),
               "unknown flag --image-uri for bmc power");
  refusedUsage(good("power", {"--reset"}), "flag --reset needs a value");
  refusedUsage(good("power", {"--reset", "--chassis"}), "flag --reset needs a value");
  refusedUsage(good("power", {"--reset", "On", "--reset=ForceOff"}), "flag --reset given twice");
  refusedUsage(good("power", {"--chassis=yes"}), "flag --chassis takes no value");
  refusedUsage(good("boot", {"--once", "hdd"}), "--once hdd is not supported yet");
  refusedUsage(good("boot", {"--once", "floppy"}), "--once takes pxe, http or cd");
  refusedUsage(good("boot", {"--uefi-http-uri", "http://10.0.0.1/x.efi"}),
               "--uefi-http-uri needs --once http");
  refusedUsage(good("boot", {"--once", "http", "--uefi-http-uri", "tftp://x"}),
               "--uefi-http-uri must be an http:// or https:// URL");
  refusedUsage(good("update"), "--image-uri is required");
  refusedUsage(good("update", {"--image-uri", "http://x/fw.bin", "--target", "BMC"}),
               "--target takes a FirmwareInventory path");
  refusedUsage(good("update", {"--image-uri", "http://x/fw.bin", "--timeout", "5"}),
               "--timeout needs --wait");
  refusedUsage(good("update", {"--image-uri", "http://x/fw.bin", "--wait", "--timeout", "soon"}),
               "--timeout takes whole seconds");
  refusedUsage(good("tasks", {"--task", "Tasks/1"}), "--task takes a task path");
  refusedUsage(good("bios", {"--set", "/nonexistent/bios.json"}),
               "cannot read /nonexistent/bios.json");
  refusedUsage(good("firmware", {"--system", "/redfish/v1/Systems/1"}),
               "unknown flag --system for bmc firmware");
  // Stray words and misspelt flags are named without their values: either may be a password.
  refusedUsage({"power", "--url", "https://h", "--username", "u", "--password", "p", "s3cret-pw"},
               "unexpected argument #7 after power");
  refusedUsage({"power", "--url", "https://h", "--username", "u", "--pasword=s3cret-pw"},
               "unknown flag --pasword for bmc power");
  auto missing = run({"power", "--url", "https://h", "--password", "p"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("--username is required") != std::string::npos);
}

TEST_CASE("bmc --help lists every subcommand and the exit codes on stdout", "[ops][cli]") {
  auto all = run({"--help"});
  CHECK(all.code == 0);
  CHECK_FALSE(all.connected);
  for (const char* command :
       {"inventory", "power", "boot", "bios", "firmware", "update", "tasks"}) {
    CHECK(all.out.find(std::string("\n  ") + command) != std::string::npos);
  }
  CHECK(all.out.find("exit codes: 0 done, 1 the BMC failed or refused") != std::string::npos);
  auto power = run(good("power", {"--help"}));
  CHECK(power.code == 0);
  CHECK_FALSE(power.connected);
  CHECK(power.out.find("usage: provisioner bmc power --url URL") != std::string::npos);
  CHECK(power.out.find("--reset TYPE") != std::string::npos);
  CHECK(run({}).code == 2);
}

TEST_CASE("bmc power passes the BMC's own refusal of a ResetType through with exit 1",
          "[ops][cli]") {
  // The ActionInfo allows Nmi; the BMC refuses it anyway, in its own words.
  auto result = run(good("power", {"--reset", "Nmi"}), "supermicro", [](MockupClient& client) {
    client.script(redfish::Method::kPost, "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset",
                  redfish::testing::redfishError(400, "Base.1.12.ActionParameterNotSupported",
                                                 "Nmi is not supported while the host is off."));
  });
  CHECK(result.code == 1);
  CHECK(result.out.empty());
  CHECK(result.err.find("HTTP 400") != std::string::npos);
  CHECK(result.err.find("Nmi is not supported while the host is off.") != std::string::npos);
  CHECK(result.err.find("bmc_http_error") != std::string::npos);
  CHECK(result.err.find("s3cret-pw") == std::string::npos);

  auto state = run(good("power"), "supermicro");
  REQUIRE(state.code == 0);
  auto json = nlohmann::json::parse(state.out);
  CHECK(json["system"] == "/redfish/v1/Systems/1");
  CHECK(json["power_state"] == "On");
  auto reset = run(good("power", {"--reset", "ForceRestart"}), "supermicro");
  REQUIRE(reset.code == 0);
  CHECK(nlohmann::json::parse(reset.out)["reset_type"] == "ForceRestart");
}
