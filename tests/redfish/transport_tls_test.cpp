// TLS: pin on first use, a pinned certificate that changed, CA bundle verification.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>

#include "redfish/errors.hpp"
#include "redfish/support/fixture_certs.hpp"
#include "redfish/support/fixture_server.hpp"
#include "redfish/support/transport_test_util.hpp"
#include "redfish/transport.hpp"

using namespace transport_test;
using fixture::FixtureConfig;
using fixture::FixtureServer;

namespace {

FixtureConfig tlsConfig(const fixture::CertFiles& cert) {
  FixtureConfig config;
  config.tls = true;
  config.certPath = cert.certPath;
  config.keyPath = cert.keyPath;
  return config;
}

// "AB:CD:..." as an operator might paste it.
std::string colonUpper(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    if (!out.empty()) out += ':';
    out += hex.substr(i, 2);
  }
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

TEST_CASE("transport pins on first use and reports the certificate fingerprint",
          "[transport][tls]") {
  fixture::TestPki pki;
  auto cert = pki.selfSigned("bmc");
  FixtureServer bmc(tlsConfig(cert));
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  CHECK(client->certificateFingerprint().empty());
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE(result.ok());
  CHECK(result->status == 200);
  CHECK(client->certificateFingerprint() == cert.sha256);
  CHECK(bmc.logins() == 1);
}

TEST_CASE("transport refuses a certificate that differs from the pin before sending anything",
          "[transport][tls]") {
  fixture::TestPki pki;
  auto presented = pki.selfSigned("bmc");
  auto other = pki.selfSigned("other");
  FixtureServer bmc(tlsConfig(presented));
  redfish::Transport transport(quickOptions());
  auto endpoint = endpointFor(bmc);
  endpoint.tls.mode = redfish::TlsPolicy::Mode::kPinned;
  endpoint.tls.pinnedSha256 = colonUpper(other.sha256);
  auto client = transport.client(endpoint).value();
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kPinMismatch);
  CHECK(result.error().kind == common::ErrorKind::kConflict);
  CHECK(result.error().message.find(other.sha256) != std::string::npos);
  CHECK(result.error().message.find(presented.sha256) != std::string::npos);
  CHECK(result.error().message.find(endpoint.password) == std::string::npos);
  CHECK(bmc.arrivals().empty());  // not even the unauthenticated service root
  CHECK(transport.stats().retries == 0);
}

TEST_CASE("transport accepts the pinned certificate given with colons and upper case",
          "[transport][tls]") {
  fixture::TestPki pki;
  auto cert = pki.selfSigned("bmc");
  FixtureServer bmc(tlsConfig(cert));
  redfish::Transport transport(quickOptions());
  auto endpoint = endpointFor(bmc);
  endpoint.tls.mode = redfish::TlsPolicy::Mode::kPinned;
  endpoint.tls.pinnedSha256 = colonUpper(cert.sha256);
  auto client = transport.client(endpoint).value();
  REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
  CHECK(client->certificateFingerprint() == cert.sha256);
}

TEST_CASE("transport keeps the first-use pin when the BMC certificate changes later",
          "[transport][tls]") {
  fixture::TestPki pki;
  auto first = pki.selfSigned("first");
  auto second = pki.selfSigned("second");
  redfish::Transport transport(quickOptions());
  std::shared_ptr<redfish::BmcClient> client;
  auto config = tlsConfig(first);
  {
    FixtureServer bmc(config);
    config.port = std::stoi(bmc.baseUrl().substr(bmc.baseUrl().rfind(':') + 1));
    client = transport.client(endpointFor(bmc)).value();
    REQUIRE(client->send(get("/redfish/v1/Systems")).ok());
    REQUIRE(client->certificateFingerprint() == first.sha256);
    REQUIRE(client->close().ok());
  }
  // Same address, another certificate: the new connection's handshake must fail.
  config.certPath = second.certPath;
  config.keyPath = second.keyPath;
  FixtureServer impostor(config);
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kPinMismatch);
  CHECK(impostor.arrivals().empty());
}

TEST_CASE("transport verifies against a CA bundle and refuses another CA", "[transport][tls]") {
  fixture::TestPki pki;
  auto trusted = pki.caSigned("trusted");
  auto foreign = pki.caSigned("foreign");
  FixtureServer bmc(tlsConfig(trusted.leaf));
  {
    redfish::Transport transport(quickOptions());
    auto endpoint = endpointFor(bmc);
    endpoint.tls.mode = redfish::TlsPolicy::Mode::kCaBundle;
    endpoint.tls.caBundlePath = trusted.caPath;
    auto client = transport.client(endpoint).value();
    auto result = client->send(get("/redfish/v1/Systems"));
    REQUIRE(result.ok());
    CHECK(result->status == 200);
    CHECK(client->certificateFingerprint() == trusted.leaf.sha256);
  }
  std::size_t before = bmc.arrivals().size();
  redfish::Transport transport(quickOptions());
  auto endpoint = endpointFor(bmc);
  endpoint.tls.mode = redfish::TlsPolicy::Mode::kCaBundle;
  endpoint.tls.caBundlePath = foreign.caPath;
  auto client = transport.client(endpoint).value();
  auto result = client->send(get("/redfish/v1/Systems"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == redfish::codes::kTlsError);
  CHECK(bmc.arrivals().size() == before);
}

TEST_CASE("transport refuses a malformed pin when the client is created", "[transport][tls]") {
  redfish::Transport transport(quickOptions());
  redfish::BmcEndpoint endpoint;
  endpoint.baseUrl = "https://127.0.0.1:1";
  endpoint.tls.mode = redfish::TlsPolicy::Mode::kPinned;
  endpoint.tls.pinnedSha256 = "abc";
  auto client = transport.client(endpoint);
  REQUIRE_FALSE(client.ok());
  CHECK(client.error().kind == common::ErrorKind::kInvalidArgument);
}
