// The JSON form of faults: merge-patch semantics, and bad members named in the error.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "simulator/faults.hpp"

using namespace sim;
using nlohmann::json;

TEST_CASE("Faults JSON patches only the members it names", "[engine]") {
  Faults base;
  base.transport.resetRate = 0.25;
  auto patched = applyFaultsJson(base, json{{"latency_ms", 50},
                                            {"latency_sigma", 0.3},
                                            {"slow_factor", 4},
                                            {"http_5xx_rate", 0.1},
                                            {"hung_tasks", true},
                                            {"max_sessions", 2},
                                            {"chassis_serial", "WRONG123"},
                                            {"certificate_rotated", true}});
  REQUIRE(patched);
  REQUIRE(patched->latency.medianMs == 50);
  REQUIRE(patched->latency.sigma == Approx(0.3));
  REQUIRE(patched->latency.slowFactor == 4);
  REQUIRE(patched->transport.http5xxRate == Approx(0.1));
  REQUIRE(patched->transport.resetRate == Approx(0.25));  // kept from base
  REQUIRE(patched->behaviour.hungTasks);
  REQUIRE(patched->behaviour.maxSessions == 2);
  REQUIRE(patched->behaviour.chassisSerial == "WRONG123");
  REQUIRE(patched->behaviour.certificateRotated);
  REQUIRE_FALSE(patched->behaviour.pcieDownTrained);

  auto cleared =
      applyFaultsJson(*patched, json{{"max_sessions", nullptr}, {"chassis_serial", nullptr}});
  REQUIRE(cleared);
  REQUIRE_FALSE(cleared->behaviour.maxSessions);
  REQUIRE_FALSE(cleared->behaviour.chassisSerial);
}

TEST_CASE("Faults JSON round-trips through faultsToJson", "[engine]") {
  auto faults = applyFaultsJson({}, json{{"timeout_rate", 0.5},
                                         {"pcie_down_trained", true},
                                         {"max_sessions", 3},
                                         {"ignore_boot_override", true}});
  REQUIRE(faults);
  json out = faultsToJson(*faults);
  REQUIRE(out["timeout_rate"] == 0.5);
  REQUIRE(out["max_sessions"] == 3);
  REQUIRE(out["chassis_serial"].is_null());
  auto again = applyFaultsJson({}, out);
  REQUIRE(again);
  REQUIRE(faultsToJson(*again) == out);
}

TEST_CASE("Faults JSON refuses unknown members and wrong types naming the member", "[engine]") {
  auto unknown = applyFaultsJson({}, json{{"latency_ms", 5}, {"explode", true}});
  REQUIRE_FALSE(unknown);
  REQUIRE(unknown.error().kind == common::ErrorKind::kInvalidArgument);
  REQUIRE(unknown.error().field == "explode");

  auto wrongType = applyFaultsJson({}, json{{"hung_tasks", "yes"}});
  REQUIRE_FALSE(wrongType);
  REQUIRE(wrongType.error().field == "hung_tasks");

  auto outOfRange = applyFaultsJson({}, json{{"reset_rate", 1.5}});
  REQUIRE_FALSE(outOfRange);
  REQUIRE(outOfRange.error().field == "reset_rate");

  REQUIRE(applyFaultsJson({}, json{{"latency_ms", -1}}).error().field == "latency_ms");
  REQUIRE(applyFaultsJson({}, json{{"slow_factor", 0}}).error().field == "slow_factor");
  REQUIRE(applyFaultsJson({}, json{{"max_sessions", 1.5}}).error().field == "max_sessions");
  REQUIRE(applyFaultsJson({}, json{{"chassis_serial", 5}}).error().field == "chassis_serial");
  REQUIRE_FALSE(applyFaultsJson({}, json::array()));
}
