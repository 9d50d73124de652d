// Each BMC presents its own self-signed certificate; the engine reports the fingerprint clients
// see, and a rotation changes it for new connections.
#include <catch2/catch.hpp>

#include <set>

#include "simulator/support/engine_test_support.hpp"
#include "simulator/tls_identity.hpp"

using namespace sim;
using sim::test::clientFor;
using sim::test::presentedFingerprint;
using sim::test::startTestEngine;

TEST_CASE("Each BMC presents its own certificate and the reported fingerprint matches",
          "[engine]") {
  auto fleet = startTestEngine(5, "127.22.0.1");
  std::set<std::string> fingerprints;
  for (const ServedBmc& bmc : fleet.engine->bmcs()) {
    REQUIRE(bmc.fingerprint.size() == 64);
    REQUIRE(bmc.fingerprint.find_first_not_of("0123456789abcdef") == std::string::npos);
    REQUIRE(presentedFingerprint(bmc.address, bmc.port) == bmc.fingerprint);
    fingerprints.insert(bmc.fingerprint);
  }
  REQUIRE(fingerprints.size() == 5);
}

TEST_CASE("Certificate rotation changes the certificate for new connections", "[engine]") {
  auto fleet = startTestEngine(2, "127.22.1.1");
  auto before = fleet.engine->bmcs();
  auto kept = clientFor(before[0]);
  REQUIRE(kept->Get("/redfish/v1"));

  auto rotated = fleet.engine->rotateCertificate(before[0].id);
  REQUIRE(rotated);
  REQUIRE(*rotated != before[0].fingerprint);
  REQUIRE(fleet.engine->bmc(before[0].id)->fingerprint == *rotated);
  REQUIRE(presentedFingerprint(before[0].address, before[0].port) == *rotated);
  // The other BMC and connections opened before the rotation are untouched.
  REQUIRE(presentedFingerprint(before[1].address, before[1].port) == before[1].fingerprint);
  REQUIRE(kept->Get("/redfish/v1"));
  REQUIRE_FALSE(fleet.engine->rotateCertificate("no-such-bmc"));
}

TEST_CASE("Plain HTTP mode has no fingerprint and an http base URL", "[engine]") {
  EngineOptions options;
  options.tls = false;
  auto fleet = startTestEngine(1, "127.22.2.1", options);
  auto bmc = fleet.engine->bmcs()[0];
  REQUIRE(bmc.fingerprint.empty());
  REQUIRE(bmc.baseUrl.rfind("http://", 0) == 0);
  REQUIRE(clientFor(bmc)->Get("/redfish/v1"));
  REQUIRE_FALSE(fleet.engine->rotateCertificate(bmc.id));
}

TEST_CASE("A TLS identity names its address and differs on every generation", "[engine]") {
  auto first = TlsIdentity::generate("127.22.3.4");
  auto second = TlsIdentity::generate("127.22.3.4");
  REQUIRE(first);
  REQUIRE(second);
  REQUIRE(first->fingerprint() != second->fingerprint());
  REQUIRE(first->certificatePem().rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  REQUIRE(first->context() != nullptr);
}
