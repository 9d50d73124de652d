// The engine serves many BMCs, each at its own address, from one loop: identity, keep-alive,
// latency, request bodies and unreachable BMCs.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <set>

#include <nlohmann/json.hpp>

#include "simulator/support/engine_test_support.hpp"

using namespace sim;
using sim::test::clientFor;
using sim::test::startTestEngine;

namespace {

nlohmann::json bodyOf(const httplib::Result& result) {
  return nlohmann::json::parse(result->body, nullptr, false);
}

}  // namespace

TEST_CASE("Engine serves 200 BMCs over HTTPS each on its own address with its own identity",
          "[engine]") {
  auto fleet = startTestEngine(200, "127.21.0.250");
  auto bmcs = fleet.engine->bmcs();
  REQUIRE(bmcs.size() == 200);
  std::set<std::string> addresses;
  for (const ServedBmc& bmc : bmcs) {
    addresses.insert(bmc.address);
    REQUIRE(bmc.port == fleet.engine->port());
    REQUIRE(bmc.baseUrl == "https://" + bmc.address + ":" + std::to_string(bmc.port));
    auto client = clientFor(bmc);
    auto result = client->Get("/redfish/v1/Systems/1?$expand=.");
    REQUIRE(result);
    REQUIRE(result->status == 200);
    REQUIRE(result->get_header_value("Content-Type") == "application/json");
    auto body = bodyOf(result);
    REQUIRE(body["id"] == bmc.id);
    REQUIRE(body["path"] == "/redfish/v1/Systems/1");
    REQUIRE(body["query"] == "$expand=.");
  }
  REQUIRE(addresses.size() == 200);
  REQUIRE(addresses.count("127.21.0.255") == 0);  // .0 and .255 are skipped
  REQUIRE(addresses.count("127.21.1.0") == 0);
  REQUIRE(addresses.count("127.21.1.1") == 1);
  auto stats = fleet.engine->stats();
  REQUIRE(stats.requests == 200);
  REQUIRE(stats.answered == 200);
  for (const BmcStats& bmc : stats.bmcs) REQUIRE(bmc.requests == 1);
}

TEST_CASE("Keep-alive reuses one connection for many requests", "[engine]") {
  EngineOptions options;
  options.tls = false;
  auto fleet = startTestEngine(2, "127.21.10.1", options);
  auto client = clientFor(fleet.engine->bmcs()[0]);
  for (int i = 0; i < 10; ++i) {
    auto result = client->Get("/redfish/v1");
    REQUIRE(result);
    REQUIRE(result->status == 200);
  }
  auto stats = fleet.engine->stats();
  REQUIRE(stats.bmcs[0].requests == 10);
  REQUIRE(stats.bmcs[0].connectionsAccepted == 1);
  REQUIRE(stats.bmcs[0].openConnections == 1);
  REQUIRE(stats.bmcs[0].peakConnections == 1);
  REQUIRE(stats.bmcs[1].requests == 0);
  client->stop();
  REQUIRE(sim::test::waitFor([&] { return fleet.engine->stats().openConnections == 0; }));
}

TEST_CASE("Concurrent connections are counted per BMC and in total", "[engine]") {
  EngineOptions options;
  options.tls = false;
  auto fleet = startTestEngine(2, "127.21.11.1", options);
  auto bmcs = fleet.engine->bmcs();
  std::vector<std::unique_ptr<httplib::Client>> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(clientFor(bmcs[0]));
  clients.push_back(clientFor(bmcs[1]));
  for (auto& client : clients) REQUIRE(client->Get("/redfish/v1"));
  auto stats = fleet.engine->stats();
  REQUIRE(stats.bmcs[0].openConnections == 3);
  REQUIRE(stats.bmcs[0].peakConnections == 3);
  REQUIRE(stats.openConnections == 4);
  REQUIRE(stats.peakConnections == 4);
  for (auto& client : clients) client->stop();
  REQUIRE(sim::test::waitFor([&] { return fleet.engine->stats().openConnections == 0; }));
  REQUIRE(fleet.engine->stats().peakConnections == 4);
}

TEST_CASE("Latency delays each answer without blocking other BMCs", "[engine]") {
  EngineOptions options;
  options.tls = false;
  Faults faults;
  faults.latency.medianMs = 50;
  auto fleet = startTestEngine(2, "127.21.12.1", options, faults);
  auto bmcs = fleet.engine->bmcs();
  auto client = clientFor(bmcs[0]);
  for (int i = 0; i < 3; ++i) {
    auto started = std::chrono::steady_clock::now();
    auto result = client->Get("/redfish/v1");
    auto elapsed = std::chrono::steady_clock::now() - started;
    REQUIRE(result);
    REQUIRE(result->status == 200);
    REQUIRE(elapsed >= std::chrono::milliseconds(50));
  }
  // A slow BMC: 20x the median; the other BMC keeps answering in the meantime.
  LatencyModel slow;
  slow.medianMs = 50;
  slow.slowFactor = 20;
  REQUIRE(fleet.engine->setFaults(bmcs[0].id, slow, {}));
  REQUIRE(fleet.engine->setFaults(bmcs[1].id, {}, {}));
  auto slowResult = std::async(std::launch::async, [&] {
    auto started = std::chrono::steady_clock::now();
    auto result = clientFor(bmcs[0])->Get("/redfish/v1");
    return std::make_pair(result && result->status == 200,
                          std::chrono::steady_clock::now() - started);
  });
  auto fastStarted = std::chrono::steady_clock::now();
  REQUIRE(clientFor(bmcs[1])->Get("/redfish/v1"));
  auto fastElapsed = std::chrono::steady_clock::now() - fastStarted;
  auto [slowOk, slowElapsed] = slowResult.get();
  REQUIRE(slowOk);
  REQUIRE(slowElapsed >= std::chrono::milliseconds(1000));
  REQUIRE(fastElapsed < std::chrono::milliseconds(900));
}

TEST_CASE("Request bodies reach the handler whole and PATCH is allowed", "[engine]") {
  EngineOptions options;
  options.tls = false;
  auto fleet = startTestEngine(1, "127.21.13.1", options);
  auto client = clientFor(fleet.engine->bmcs()[0]);
  std::string large(3 * 1024 * 1024, 'x');
  auto posted = client->Post("/redfish/v1/UpdateService/upload", large, "application/octet-stream");
  REQUIRE(posted);
  REQUIRE(bodyOf(posted)["body_size"] == large.size());
  auto patched = client->Patch("/redfish/v1/Systems/1", R"({"a":1})", "application/json");
  REQUIRE(patched);
  REQUIRE(bodyOf(patched)["method"] == "PATCH");
}

TEST_CASE("Bodies over the limit are refused", "[engine]") {
  EngineOptions options;
  options.tls = false;
  options.maxBodyBytes = 1024;
  auto fleet = startTestEngine(1, "127.21.14.1", options);
  auto client = clientFor(fleet.engine->bmcs()[0]);
  auto result = client->Post("/upload", std::string(4096, 'x'), "application/octet-stream");
  REQUIRE((!result || result->status == 413));
  REQUIRE(fleet.handlers[0]->handled() == 0);
}

TEST_CASE("An unreachable BMC drops connections without an answer", "[engine]") {
  EngineOptions options;
  options.tls = false;
  auto fleet = startTestEngine(2, "127.21.15.1", options);
  fleet.handlers[0]->setReachable(false);
  auto bmcs = fleet.engine->bmcs();
  auto result = clientFor(bmcs[0])->Get("/redfish/v1");
  REQUIRE_FALSE(result);
  REQUIRE(fleet.handlers[0]->handled() == 0);
  REQUIRE(clientFor(bmcs[1])->Get("/redfish/v1"));
  REQUIRE(fleet.engine->stats().faults.unreachable == 1);
  fleet.handlers[0]->setReachable(true);
  REQUIRE(clientFor(bmcs[0])->Get("/redfish/v1"));
}

TEST_CASE("Loopback addresses skip .0 and .255 and stay in 127/8", "[engine]") {
  auto addresses = loopbackAddresses("127.20.0.254", 3);
  REQUIRE(addresses);
  REQUIRE(*addresses == std::vector<std::string>{"127.20.0.254", "127.20.1.1", "127.20.1.2"});
  REQUIRE_FALSE(loopbackAddresses("10.0.0.1", 1));
  REQUIRE_FALSE(loopbackAddresses("127.255.255.254", 2));
  REQUIRE(loopbackAddresses("not-an-address", 1).error().field == "address_base");
}

TEST_CASE("Chunked request bodies reach the handler whole", "[engine]") {
  EngineOptions options;
  options.tls = false;
  auto fleet = startTestEngine(1, "127.21.16.1", options);
  auto client = clientFor(fleet.engine->bmcs()[0]);
  int chunks = 0;
  auto result = client->Post(
      "/upload",
      [&chunks](std::size_t, httplib::DataSink& sink) {
        if (chunks++ < 4) {
          sink.write(std::string(1000, 'c').data(), 1000);
        } else {
          sink.done();
        }
        return true;
      },
      "application/octet-stream");
  REQUIRE(result);
  REQUIRE(bodyOf(result)["body_size"] == 4000);
}
