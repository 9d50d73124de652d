// The agent's client over https: verified with --ca-file, refused (without retrying) otherwise.
#include <catch2/catch.hpp>

#include "agent/service_client.hpp"
#include "fake_agent_service.hpp"
#include "redfish/support/fixture_certs.hpp"

using agent_testing::FakeAgentService;

namespace {

common::Result<agent::ServiceClient> clientFor(const FakeAgentService& service,
                                               const std::string& ca_file, int* sleeps) {
  agent::ServiceClientOptions options;
  options.base_url = service.baseUrl();
  options.node_id = "42";
  options.ca_file = ca_file;
  options.sleeper = [sleeps](std::chrono::milliseconds) { ++*sleeps; };
  return agent::ServiceClient::create(std::move(options));
}

// Strings moved in, not assigned from literals: g++ 12 at -O3 reports a false
// -Wmaybe-uninitialized for `options.field = "literal"` on a fresh struct (a
// known false positive of its inlined std::string::_M_replace).
agent::ServiceClientOptions optionsFor(std::string base_url, std::string node_id) {
  agent::ServiceClientOptions options;
  options.base_url = std::move(base_url);
  options.node_id = std::move(node_id);
  return options;
}

agent::Facts someFacts() {
  agent::Facts facts;
  facts.host_serial = "SRV-1";
  facts.agent_version = "0.1.0";
  facts.backend = "simulated";
  return facts;
}

}  // namespace

TEST_CASE("agent registers over https with the CA bundle it was given", "[agent]") {
  fixture::TestPki pki;
  auto pair = pki.caSigned("agent-service");
  FakeAgentService service(pair.leaf.certPath, pair.leaf.keyPath);
  int sleeps = 0;
  auto client = clientFor(service, pair.caPath, &sleeps);
  REQUIRE(client.ok());
  auto registration = client->registerNode(FakeAgentService::kBootToken, someFacts());
  REQUIRE(registration.ok());
  CHECK(registration->session_token == FakeAgentService::kSessionToken);
  auto task = client->fetchTask();
  REQUIRE(task.ok());
  CHECK(task->id == FakeAgentService::kTaskId);
  CHECK(sleeps == 0);
}

TEST_CASE("agent refuses an untrusted service certificate without retrying", "[agent]") {
  fixture::TestPki pki;
  auto pair = pki.caSigned("agent-service");
  auto other = pki.caSigned("someone-else");
  FakeAgentService service(pair.leaf.certPath, pair.leaf.keyPath);
  int sleeps = 0;
  auto client = clientFor(service, other.caPath, &sleeps);
  REQUIRE(client.ok());
  auto registration = client->registerNode(FakeAgentService::kBootToken, someFacts());
  REQUIRE_FALSE(registration.ok());
  CHECK(registration.error().code == "tls_untrusted");
  CHECK(sleeps == 0);
  CHECK(service.record().calls.empty());
}

TEST_CASE("agent client refuses bad URLs and node ids", "[agent]") {
  CHECK(agent::ServiceClient::create(optionsFor("ftp://example", "42")).error().code ==
        "invalid_service_url");
  CHECK(agent::ServiceClient::create(optionsFor("https://svc.example:8443/prefix/", "../admin"))
            .error()
            .code == "invalid_node_id");
  CHECK(
      agent::ServiceClient::create(optionsFor("https://svc.example:8443/prefix/", "node-7")).ok());
}
