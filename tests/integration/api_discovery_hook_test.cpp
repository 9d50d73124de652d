// The DHCP hook scripts (scripts/dhcp) run as dnsmasq and Kea would run them, against the real
// service: the lease shows up as a discovery; a service that is down never fails the hook.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/secret_box.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

struct TokenFile {
  std::filesystem::path path;
  explicit TokenFile(const std::string& token)
      : path(std::filesystem::temp_directory_path() /
             ("hook-token-" + common::sha256Hex(common::randomBytes(8)).substr(0, 12))) {
    std::ofstream(path) << token << "\n";
  }
  ~TokenFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

// Runs `script args` with the hook's settings in the environment; returns its exit status.
int runHook(const std::string& script, const std::string& args, const std::string& url,
            const TokenFile& token, const std::string& extra_env = "") {
  const std::string command =
      "env -i PATH=/usr/bin:/bin PROVISIONER_HOOK_CONFIG=/nonexistent "
      "PROVISIONER_URL='" +
      url + "' PROVISIONER_TOKEN_FILE='" + token.path.string() + "' PROVISIONER_HOOK_TIMEOUT=5 " +
      extra_env + " " + std::string(PROVISIONER_TEST_SOURCE_DIR) + "/scripts/dhcp/" + script + " " +
      args + " 2>/dev/null";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json bmcs(ServiceFixture& svc) {
  auto r = svc.get("/api/v1/discovery/bmcs", "viewer");
  REQUIRE(r.status == 200);
  return r.json()["items"];
}

}  // namespace

TEST_CASE("the dnsmasq hook reports a lease to the service", "[integration][discovery][hooks]") {
  ServiceFixture svc(testing::withEngine());
  TokenFile token(svc.token("operator"));
  CHECK(runHook("dnsmasq-lease-hook", "add 02:00:00:00:aa:01 10.9.0.11 bmc-11", svc.publicUrl(),
                token, "DNSMASQ_VENDOR_CLASS='OpenBMC \"x\"'") == 0);
  auto items = bmcs(svc);
  REQUIRE(items.size() == 1);
  CHECK(items[0]["bmc_mac"] == "02:00:00:00:aa:01");
  CHECK(items[0]["bmc_address"] == "10.9.0.11");
  CHECK(items[0]["hostname"] == "bmc-11");
  CHECK(items[0]["vendor_class"] == "OpenBMC \"x\"");
  CHECK(runHook("dnsmasq-lease-hook", "del 02:00:00:00:aa:01 10.9.0.11", svc.publicUrl(), token) ==
        0);
  CHECK(bmcs(svc)[0]["lease_state"] == "released");
  // dnsmasq's other calls (init, tftp) are not leases.
  CHECK(runHook("dnsmasq-lease-hook", "init", svc.publicUrl(), token) == 0);
  CHECK(bmcs(svc).size() == 1);
}

TEST_CASE("the Kea hook reports selected and released leases", "[integration][discovery][hooks]") {
  ServiceFixture svc(testing::withEngine());
  TokenFile token(svc.token("operator"));
  const std::string lease =
      "LEASE4_ADDRESS=10.9.0.12 LEASE4_HWADDR=02:00:00:00:aa:02 "
      "LEASE4_HOSTNAME=bmc-12";
  CHECK(runHook("kea-lease-hook", "lease4_select", svc.publicUrl(), token,
                lease + " FAKE_ALLOCATION=1") == 0);
  CHECK(bmcs(svc).empty());
  CHECK(runHook("kea-lease-hook", "lease4_select", svc.publicUrl(), token,
                lease + " FAKE_ALLOCATION=0") == 0);
  auto items = bmcs(svc);
  REQUIRE(items.size() == 1);
  CHECK(items[0]["bmc_mac"] == "02:00:00:00:aa:02");
  CHECK(items[0]["hostname"] == "bmc-12");
  CHECK(runHook("kea-lease-hook", "lease4_expire", svc.publicUrl(), token, lease) == 0);
  CHECK(bmcs(svc)[0]["lease_state"] == "released");
}

TEST_CASE("a hook exits 0 when the service is down or refuses", "[integration][discovery][hooks]") {
  ServiceFixture svc(testing::withEngine());
  TokenFile viewer(svc.token("viewer"));
  CHECK(runHook("dnsmasq-lease-hook", "add 02:00:00:00:aa:03 10.9.0.13", svc.publicUrl(), viewer) ==
        0);
  CHECK(bmcs(svc).empty());
  // Port 1 on loopback: nothing listens there.
  CHECK(runHook("dnsmasq-lease-hook", "add 02:00:00:00:aa:03 10.9.0.13", "http://127.0.0.1:1",
                viewer) == 0);
  TokenFile missing("unused");
  std::filesystem::remove(missing.path);
  CHECK(runHook("dnsmasq-lease-hook", "add 02:00:00:00:aa:03 10.9.0.13", svc.publicUrl(),
                missing) == 0);
  CHECK(bmcs(svc).empty());
}
