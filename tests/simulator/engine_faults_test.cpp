// Transport faults as clients see them: 503 with Retry-After, held requests, resets and
// truncated bodies; and the same seed failing the same requests.
#include <catch2/catch.hpp>

#include <future>

#include <nlohmann/json.hpp>

#include "simulator/support/engine_test_support.hpp"

using namespace sim;
using sim::test::clientFor;
using sim::test::startTestEngine;
using sim::test::waitFor;

namespace {

EngineOptions plainHttp(std::uint64_t seed = 1) {
  EngineOptions options;
  options.tls = false;
  options.seed = seed;
  return options;
}

Faults transport(double TransportFaults::*rate, double value) {
  Faults faults;
  faults.transport.*rate = value;
  return faults;
}

std::vector<int> statusSequence(std::uint64_t seed, const std::string& base) {
  auto fleet =
      startTestEngine(1, base, plainHttp(seed), transport(&TransportFaults::http5xxRate, 0.5));
  auto client = clientFor(fleet.engine->bmcs()[0]);
  std::vector<int> statuses;
  for (int i = 0; i < 40; ++i) {
    auto result = client->Get("/redfish/v1");
    statuses.push_back(result ? result->status : -1);
  }
  return statuses;
}

}  // namespace

TEST_CASE("The 5xx fault answers 503 with Retry-After", "[engine]") {
  auto fleet =
      startTestEngine(1, "127.23.0.1", plainHttp(), transport(&TransportFaults::http5xxRate, 1.0));
  auto result = clientFor(fleet.engine->bmcs()[0])->Get("/redfish/v1");
  REQUIRE(result);
  REQUIRE(result->status == 503);
  REQUIRE(result->get_header_value("Retry-After") == "1");
  auto body = nlohmann::json::parse(result->body, nullptr, false);
  REQUIRE(body.contains("error"));
  REQUIRE(fleet.handlers[0]->handled() == 0);
  REQUIRE(fleet.engine->stats().faults.http5xx == 1);
}

TEST_CASE("The timeout fault never answers and frees the request when the client leaves",
          "[engine]") {
  auto fleet =
      startTestEngine(1, "127.23.1.1", plainHttp(), transport(&TransportFaults::timeoutRate, 1.0));
  auto client = clientFor(fleet.engine->bmcs()[0], std::chrono::milliseconds(300));
  auto result = client->Get("/redfish/v1");
  REQUIRE_FALSE(result);
  REQUIRE(result.error() == httplib::Error::Read);
  client->stop();
  REQUIRE(waitFor([&] { return fleet.engine->stats().openConnections == 0; }));
  auto stats = fleet.engine->stats();
  REQUIRE(stats.faults.timeouts == 1);
  REQUIRE(stats.answered == 0);
}

TEST_CASE("The reset fault closes the connection without an answer", "[engine]") {
  auto fleet =
      startTestEngine(1, "127.23.2.1", plainHttp(), transport(&TransportFaults::resetRate, 1.0));
  auto result = clientFor(fleet.engine->bmcs()[0])->Get("/redfish/v1");
  REQUIRE_FALSE(result);
  REQUIRE(fleet.engine->stats().faults.resets == 1);
  REQUIRE(waitFor([&] { return fleet.engine->stats().openConnections == 0; }));
}

TEST_CASE("The reset fault also resets TLS connections", "[engine]") {
  auto fleet = startTestEngine(1, "127.23.3.1", EngineOptions{},
                               transport(&TransportFaults::resetRate, 1.0));
  REQUIRE_FALSE(clientFor(fleet.engine->bmcs()[0])->Get("/redfish/v1"));
  REQUIRE(fleet.engine->stats().faults.resets == 1);
}

TEST_CASE("The malformed fault cuts the JSON body in half and keeps 200", "[engine]") {
  auto fleet = startTestEngine(1, "127.23.4.1", plainHttp());
  auto client = clientFor(fleet.engine->bmcs()[0]);
  auto whole = client->Get("/redfish/v1");
  REQUIRE(whole);
  Faults faults = transport(&TransportFaults::malformedRate, 1.0);
  REQUIRE(fleet.engine->setFaults("bmc-000", faults.latency, faults.transport));
  auto cut = client->Get("/redfish/v1");
  REQUIRE(cut);
  REQUIRE(cut->status == 200);
  REQUIRE(cut->body.size() == whole->body.size() / 2);
  REQUIRE(cut->body == whole->body.substr(0, whole->body.size() / 2));
  REQUIRE(nlohmann::json::parse(cut->body, nullptr, false).is_discarded());
  REQUIRE(fleet.engine->stats().faults.malformed == 1);
}

TEST_CASE("Fault draws are reproducible with a seed", "[engine]") {
  auto first = statusSequence(7, "127.23.5.1");
  auto second = statusSequence(7, "127.23.6.1");
  auto other = statusSequence(8, "127.23.7.1");
  REQUIRE(first == second);
  REQUIRE(first != other);
  auto failures = std::count(first.begin(), first.end(), 503);
  REQUIRE(failures > 5);
  REQUIRE(failures < 35);
}

TEST_CASE("Setting faults on an unknown BMC is not found", "[engine]") {
  auto fleet = startTestEngine(1, "127.23.8.1", plainHttp());
  auto result = fleet.engine->setFaults("nope", {}, {});
  REQUIRE_FALSE(result);
  REQUIRE(result.error().kind == common::ErrorKind::kNotFound);
}

TEST_CASE("Stopping the engine frees held and delayed requests", "[engine]") {
  Faults faults = transport(&TransportFaults::timeoutRate, 1.0);
  auto fleet = startTestEngine(2, "127.23.9.1", plainHttp(), faults);
  auto bmcs = fleet.engine->bmcs();
  LatencyModel slow;
  slow.medianMs = 60'000;
  REQUIRE(fleet.engine->setFaults(bmcs[1].id, slow, {}));
  auto held = std::async(std::launch::async, [&] { return bool(clientFor(bmcs[0])->Get("/")); });
  auto delayed = std::async(std::launch::async, [&] { return bool(clientFor(bmcs[1])->Get("/")); });
  REQUIRE(waitFor([&] { return fleet.engine->stats().requests == 2; }));
  fleet.engine->stop();
  REQUIRE_FALSE(held.get());
  REQUIRE_FALSE(delayed.get());
  REQUIRE(fleet.engine->stats().bmcs.empty());
}
