// The health API over HTTP: an agent's batch with its node-scoped session token, a GPU's history
// at the resolution its range calls for, roll-ups by place, and 400s that name the field.
#include <catch2/catch.hpp>

#include "boot_test_support.hpp"
#include "integration/inventory_agent_test_support.hpp"
#include "inventory/health/rules.hpp"
#include "inventory/health/time.hpp"
#include "inventory/health_sweep.hpp"
#include "workflows/clock.hpp"

using nlohmann::json;
using testing::bearer;
using testing::ServiceFixture;
namespace h = inventory::health;

namespace {

std::string timeAgo(std::chrono::seconds ago) {
  return h::formatUtc(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) -
                      ago);
}

json gpu(const std::string& serial) {
  return {{"serial", serial},
          {"driver_epoch", "boot-1"},
          {"temperature_c", 61.5},
          {"power_w", 402.25},
          {"sm_clock_mhz", 1980},
          {"clock_event_reasons", 4},
          {"ecc_corrected_volatile", 3},
          {"ecc_uncorrected_volatile", 0},
          {"ecc_corrected_aggregate", 40},
          {"ecc_uncorrected_aggregate", 0},
          {"remapped_correctable", 1},
          {"remapped_uncorrectable", 0},
          {"remap_pending", false},
          {"remap_failure", false},
          {"retired_pages", 0},
          {"nvlink_crc_errors", 0},
          {"hbm_temperature_c", 67.5},
          {"mem_clock_mhz", 2619},
          {"gpu_utilization_pct", 97},
          {"pcie_replay_errors", 5},
          {"xids", json::array({{{"xid", 13}}})}};
}

struct Agent {
  inventory::Id node_id = 0;
  std::string token;
  std::string path() const { return "/api/v1/agent/nodes/" + std::to_string(node_id) + "/health"; }
};

Agent agentFor(ServiceFixture& svc, const std::string& chassis, std::optional<inventory::Id> rack) {
  auto node =
      inventory_test::makeNode(svc.db(), chassis, "", rack, rack ? 5 : std::optional<int>());
  auto task = agent_test::runningTask(svc.db(), node.id);
  const std::string secret = "agt_health_" + chassis;
  agent_test::issue(svc.db(), task, secret, "session");
  return {node.id, secret};
}

testing::HttpResult post(ServiceFixture& svc, const Agent& a, const json& body) {
  return svc.anonymous("POST", a.path(), body.dump(), bearer(a.token));
}

std::string fieldOf(const testing::HttpResult& r) {
  return r.json().value("field", "");
}

}  // namespace

TEST_CASE("the policy is listed rule by rule with what each does", "[integration][api][health]") {
  ServiceFixture svc;
  auto r = svc.get("/api/v1/health/rules", "viewer");
  INFO(r.body);
  REQUIRE(r.status == 200);
  const auto rules = r.json()["rules"];
  REQUIRE(rules.size() == inventory::health::defaultPolicy().size());
  auto find = [&](const std::string& id) {
    for (const auto& rule : rules) {
      if (rule["id"] == id) return rule;
    }
    FAIL("no rule " << id);
    return json();
  };
  const auto drain = find("nvidia.xid_drain");
  CHECK(drain["kind"] == "xid");
  CHECK(drain["action"] == "drain");
  CHECK(drain["severity"] == "critical");
  CHECK(drain["parameters"]["xids"] == json::array({64, 79, 95}));
  CHECK(drain["parameters"]["window_hours"] == 24);
  const auto learned = find("learned.temperature");
  CHECK(learned["kind"] == "learned_normal");
  CHECK(learned["action"] == "rerun_burn_in");
  CHECK(learned["parameters"]["metric"] == "temperature_c");
  CHECK(learned["parameters"]["direction"] == "high");
  CHECK(learned["parameters"]["cusum_h"] == 6);
  CHECK(learned["parameters"]["trend_days"] == 8);
  CHECK_FALSE(learned["source"].get<std::string>().empty());
  CHECK(find("learned.pcie_replays")["parameters"]["metric"] == "pcie_replays");
  CHECK(svc.anonymous("GET", "/api/v1/health/rules").status == 401);
}

TEST_CASE("an agent posts a batch and the GPU's history shows it", "[integration][api][health]") {
  ServiceFixture svc;
  auto rack = inventory_test::makeRack(svc.db(), "R11");
  auto a = agentFor(svc, "NODE-API-1", rack);
  const json batch = {{"sampled_at", timeAgo(std::chrono::seconds{60})},
                      {"gpus", json::array({gpu("GPU-API-0"), gpu("GPU-API-1")})}};
  auto r = post(svc, a, batch);
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(r.json()["samples"] == 2);
  // The same batch again (a retry): stored once.
  auto retry = post(svc, a, batch);
  REQUIRE(retry.status == 200);
  CHECK(retry.json()["duplicates"] == 2);

  auto history = svc.get("/api/v1/gpus/GPU-API-0/health", "viewer");
  INFO(history.body);
  REQUIRE(history.status == 200);
  const auto body = history.json();
  CHECK(body["resolution"] == "raw");
  REQUIRE(body["points"].size() == 1);
  CHECK(body["points"][0]["temperature_c"]["max"] == 61.5);
  CHECK(body["points"][0]["health_class"] == "warning");  // XID 13
  CHECK(body["points"][0]["xids"] == 1);
  // The monitor's other gauges, as every level carries them; the raw replay count, and no new
  // replays in a driver load's first reading.
  CHECK(body["points"][0]["hbm_temperature_c"]["avg"] == 67.5);
  CHECK(body["points"][0]["mem_clock_mhz"]["max"] == 2619);
  CHECK(body["points"][0]["gpu_utilization_pct"]["min"] == 97);
  CHECK(body["points"][0]["pcie_replay_errors"] == 5);
  CHECK(body["points"][0]["pcie_replays"] == 0);
  CHECK(body["counters"]["lifetime"]["ecc_corrected_aggregate"] == 40);
  CHECK(body["counters"]["lifetime"]["pcie_replay_errors"] == 5);
  CHECK(body["events"][0]["kind"] == "first_seen");
  CHECK(body["events"][1]["kind"] == "xid_burst");
  CHECK(body["xid_bursts"].size() == 1);
  CHECK(body["burn_ins"].empty());

  // A long range is answered from roll-ups, and says so.
  auto month =
      svc.get("/api/v1/gpus/GPU-API-0/health?from=" + timeAgo(std::chrono::hours{24 * 20}) +
                  "&to=" + timeAgo(std::chrono::seconds{0}),
              "viewer");
  REQUIRE(month.status == 200);
  CHECK(month.json()["resolution"] == "hourly");
  auto year = svc.get("/api/v1/gpus/GPU-API-0/health?from=2025-01-01T00:00:00Z", "viewer");
  REQUIRE(year.status == 200);
  CHECK(year.json()["resolution"] == "daily");
  // A resolution asked for: a coarser one always, a finer one only where it holds the range.
  auto daily = svc.get("/api/v1/gpus/GPU-API-0/health?resolution=daily", "viewer");
  REQUIRE(daily.status == 200);
  CHECK(daily.json()["resolution"] == "daily");
  auto hourly_rollups = svc.get("/api/v1/health/rollups?by=rack&resolution=hourly", "viewer");
  REQUIRE(hourly_rollups.status == 200);
  CHECK(hourly_rollups.json()["resolution"] == "hourly");
  auto too_fine = svc.get(
      "/api/v1/gpus/GPU-API-0/health?resolution=raw&from=" + timeAgo(std::chrono::hours{24 * 20}),
      "viewer");
  CHECK(too_fine.status == 400);
  CHECK(fieldOf(too_fine) == "resolution");
  CHECK(too_fine.json().value("detail", "").find("ask for hourly or daily") != std::string::npos);
  auto unknown = svc.get("/api/v1/health/rollups?resolution=weekly", "viewer");
  CHECK(unknown.status == 400);
  CHECK(fieldOf(unknown) == "resolution");

  auto rollups = svc.get("/api/v1/health/rollups?by=rack", "viewer");
  INFO(rollups.body);
  REQUIRE(rollups.status == 200);
  CHECK(rollups.json()["resolution"] == "raw");
  REQUIRE(rollups.json()["groups"].size() == 1);
  const auto group = rollups.json()["groups"][0];
  CHECK(group["rack"] == "R11");
  CHECK(group["row"] == "row-1");
  CHECK(group["gpus"] == 2);
  CHECK(group["health_classes"]["warning"] == 2);
  CHECK(group["power_w"]["avg"] == 402.25);
}

TEST_CASE("a simulated fleet's sped-up health clock decides what is in the future",
          "[integration][api][health]") {
  // Five days ahead of the real clock, as a fleet on a sped-up clock gets after a few minutes.
  const auto ahead = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
                     std::chrono::hours{120};
  testing::ServiceFixtureOptions options;
  options.health_clock = std::make_shared<workflows::FakeClock>(ahead);
  ServiceFixture svc(options);
  auto a = agentFor(svc, "NODE-API-FAST", std::nullopt);
  // Four days ahead of the real clock: the past on the health clock, taken.
  auto taken = post(svc, a,
                    {{"sampled_at", h::formatUtc(ahead - std::chrono::hours{24})},
                     {"gpus", json::array({gpu("GPU-API-FAST")})}});
  INFO(taken.body);
  REQUIRE(taken.status == 200);
  CHECK(taken.json()["samples"] == 1);
  // A query's default range ends at the health clock's now: the reading is in it.
  auto history = svc.get(
      "/api/v1/gpus/GPU-API-FAST/health?from=" + h::formatUtc(ahead - std::chrono::hours{25}),
      "viewer");
  REQUIRE(history.status == 200);
  CHECK(history.json()["points"].size() == 1);
  // Ahead of the health clock: refused, naming the field.
  auto future = post(svc, a,
                     {{"sampled_at", h::formatUtc(ahead + std::chrono::hours{1})},
                      {"gpus", json::array({gpu("GPU-API-FAST")})}});
  CHECK(future.status == 400);
  CHECK(fieldOf(future) == "sampled_at");
}

TEST_CASE("health batches need the node's agent token", "[integration][api][health]") {
  ServiceFixture svc;
  auto a = agentFor(svc, "NODE-API-2", std::nullopt);
  auto b = agentFor(svc, "NODE-API-3", std::nullopt);
  const json batch = {{"sampled_at", timeAgo(std::chrono::seconds{5})},
                      {"gpus", json::array({gpu("GPU-T-0")})}};
  CHECK(svc.anonymous("POST", a.path(), batch.dump()).status == 401);
  auto cross = svc.anonymous("POST", a.path(), batch.dump(), bearer(b.token));
  CHECK(cross.status == 403);
  CHECK(svc.anonymous("POST", a.path(), batch.dump(), bearer("agt_wrong")).status == 401);
  CHECK(inventory_test::count(svc.databaseUrl(), "gpu_health_samples") == 0);
}

TEST_CASE("bad health input is a 400 naming the field, and nothing is stored",
          "[integration][api][health]") {
  ServiceFixture svc;
  auto a = agentFor(svc, "NODE-API-4", std::nullopt);
  const std::string now = timeAgo(std::chrono::seconds{5});
  auto batchWith = [&](const std::string& field, const json& value) {
    json g = gpu("GPU-B-0");
    g[field] = value;
    return json{{"sampled_at", now}, {"gpus", json::array({g})}};
  };
  auto check = [&](const json& body, const std::string& field) {
    auto r = post(svc, a, body);
    INFO(body.dump() << " -> " << r.body);
    CHECK(r.status == 400);
    CHECK(fieldOf(r) == field);
  };
  CHECK(svc.anonymous("POST", a.path(), "{oops", bearer(a.token)).status == 400);
  check(json{{"gpus", json::array({gpu("GPU-B-0")})}}, "sampled_at");
  check(json{{"sampled_at", "yesterday"}, {"gpus", json::array({gpu("GPU-B-0")})}}, "sampled_at");
  check(json{{"sampled_at", "2001-01-01T00:00:00Z"}, {"gpus", json::array({gpu("GPU-B-0")})}},
        "sampled_at");
  check(json{{"sampled_at", "2099-01-01T00:00:00Z"}, {"gpus", json::array({gpu("GPU-B-0")})}},
        "sampled_at");
  check(json{{"sampled_at", now}, {"gpus", json::array()}}, "gpus");
  check(json{{"sampled_at", now}, {"gpus", json::array({gpu("GPU-B-0"), gpu("GPU-B-0")})}},
        "gpus[1].serial");
  check(batchWith("temperature_c", "hot"), "gpus[0].temperature_c");
  check(batchWith("temperature_c", 900), "gpus[0].temperature_c");
  check(batchWith("ecc_corrected_volatile", -1), "gpus[0].ecc_corrected_volatile");
  check(batchWith("sm_clock_mhz", 1e9), "gpus[0].sm_clock_mhz");
  check(batchWith("hbm_temperature_c", 400), "gpus[0].hbm_temperature_c");
  check(batchWith("mem_clock_mhz", -5), "gpus[0].mem_clock_mhz");
  check(batchWith("gpu_utilization_pct", 101), "gpus[0].gpu_utilization_pct");
  check(batchWith("pcie_replay_errors", "many"), "gpus[0].pcie_replay_errors");
  check(batchWith("remap_pending", "yes"), "gpus[0].remap_pending");
  // PostgreSQL text holds no NUL: refused as input, never a 5xx from the database.
  check(batchWith("serial", std::string("GPU\0B", 5)), "gpus[0].serial");
  check(batchWith("driver_epoch", std::string("e\0", 2)), "gpus[0].driver_epoch");
  check(batchWith("xids", json::array({{{"xid", 0}}})), "gpus[0].xids[0].xid");
  check(batchWith("xids", json::array({{{"xid", 79}, {"at", "2099-01-01T00:00:00Z"}}})),
        "gpus[0].xids[0].at");
  json many = json::array();
  for (int i = 0; i < 65; ++i) many.push_back(gpu("GPU-M-" + std::to_string(i)));
  check(json{{"sampled_at", now}, {"gpus", many}}, "gpus");
  CHECK(inventory_test::count(svc.databaseUrl(), "gpu_health_samples") == 0);
  CHECK(inventory_test::count(svc.databaseUrl(), "gpu_health_events") == 0);

  auto read = [&](const std::string& path) { return svc.get(path, "viewer"); };
  CHECK(read("/api/v1/gpus/GPU-NONE/health").status == 404);
  auto bad_from = read("/api/v1/gpus/GPU-B-0/health?from=soon");
  CHECK(bad_from.status == 400);
  CHECK(fieldOf(bad_from) == "from");
  auto reversed =
      read("/api/v1/gpus/GPU-B-0/health?from=2026-12-05T00:00:00Z&to=2026-12-04T00:00:00Z");
  CHECK(reversed.status == 400);
  CHECK(fieldOf(reversed) == "from");
  auto bad_by = read("/api/v1/health/rollups?by=planet");
  CHECK(bad_by.status == 400);
  CHECK(fieldOf(bad_by) == "by");
  CHECK(fieldOf(read("/api/v1/health/rollups?by=site&to=never")) == "to");
}

TEST_CASE("the silent nodes the sweep read are listed with why a BMC did not answer",
          "[integration][api][health][sweep]") {
  ServiceFixture svc;
  auto reporting = agentFor(svc, "NODE-SWEEP-1", std::nullopt);
  const auto never = inventory_test::makeNode(svc.db(), "NODE-SWEEP-2", "", std::nullopt, {});
  const std::string earlier = timeAgo(std::chrono::minutes{20});
  REQUIRE(post(svc, reporting, json{{"sampled_at", earlier}, {"gpus", json::array({gpu("G-S1")})}})
              .status == 200);
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  h::NodeBatch bmc;
  bmc.sampled_at = now;
  h::GpuSample read;
  read.serial = "G-S1";
  read.temperature_c = 48;
  bmc.gpus.push_back(read);
  REQUIRE(inventory::recordBmcHealth(svc.db(), reporting.node_id, bmc, now));
  REQUIRE(inventory::markHealthSweepUnreachable(svc.db(), never.id, now,
                                                "bmc_unreachable: connection refused"));

  auto all = svc.get("/api/v1/health/sweeps", "viewer");
  REQUIRE(all.status == 200);
  auto items = all.json()["items"];
  REQUIRE(items.size() == 2);
  CHECK(items[0]["node_id"] == reporting.node_id);
  CHECK(items[0]["reachable"] == true);
  CHECK(items[0]["gpus"] == 1);
  CHECK(h::parseUtc(items[0]["swept_at"].get<std::string>()) == now);
  CHECK(h::parseUtc(items[0]["last_reading"].get<std::string>()) == h::parseUtc(earlier));
  CHECK(items[0]["error"].is_null());
  CHECK(items[1]["node_id"] == never.id);
  CHECK(items[1]["reachable"] == false);
  CHECK(items[1]["swept_at"].is_null());
  CHECK(items[1]["last_reading"].is_null());
  CHECK(items[1]["error"] == "bmc_unreachable: connection refused");

  auto unreachable = svc.get("/api/v1/health/sweeps?reachable=false", "viewer");
  REQUIRE(unreachable.json()["items"].size() == 1);
  CHECK(unreachable.json()["items"][0]["node_id"] == never.id);
  auto first = svc.get("/api/v1/health/sweeps?limit=1", "viewer");
  CHECK(first.json()["items"].size() == 1);
  CHECK_FALSE(first.json()["next_cursor"].is_null());
  auto bad = svc.get("/api/v1/health/sweeps?reachable=maybe", "viewer");
  CHECK(bad.status == 400);
  CHECK(fieldOf(bad) == "reachable");
  // The BMC's reading is in the GPU's history, marked as the BMC's.
  auto history = svc.get("/api/v1/gpus/G-S1/health?from=" + timeAgo(std::chrono::hours{1}) +
                             "&to=" + timeAgo(std::chrono::seconds{-60}),
                         "viewer");
  REQUIRE(history.status == 200);
  auto points = history.json()["points"];
  REQUIRE(points.size() == 2);
  CHECK(points[0]["source"] == "agent");
  CHECK(points[1]["source"] == "bmc");
}
