// The flags API over HTTP: per GPU, per node and fleet-wide with filters; acknowledge and clear
// by an operator (not a viewer), recorded with who, and 4xx answers that name the field.
#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/gpu_health.hpp"
#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;
namespace h = inventory::health;

namespace {

h::FlagDraft draft(const std::string& serial, const std::string& rule, h::FlagSeverity severity) {
  h::FlagDraft d;
  d.serial = serial;
  d.rule = rule;
  d.severity = severity;
  d.action = h::FlagAction::kDrain;
  d.reason = "XID 79 at 2026-12-04T10:00:00Z";
  d.evidence_json = R"({"xid": 79})";
  d.raised_at = *h::parseUtc("2026-12-04T10:00:00Z");
  return d;
}

}  // namespace

TEST_CASE("flags are listed per GPU, node and fleet; operators acknowledge and clear them",
          "[integration][api][health]") {
  ServiceFixture svc;
  auto node = inventory_test::makeNode(svc.db(), "NODE-FLAG-1");
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  h::GpuSample g;
  g.serial = "GPU-FL-0";
  g.temperature_c = 60;
  REQUIRE(inventory::ingestHealthBatch(svc.db(), node.id, {now - std::chrono::minutes{5}, {g}}, now)
              .ok());
  auto raised =
      inventory::raiseFlags(svc.db(),
                            {draft("GPU-FL-0", "nvidia.xid_drain", h::FlagSeverity::kCritical),
                             draft("GPU-FL-0", "repeat.offender", h::FlagSeverity::kWarning),
                             draft("GPU-FL-1", "nvidia.xid48_dbe", h::FlagSeverity::kCritical)},
                            now);
  REQUIRE(raised.ok());
  const auto id = raised->raised[0].id;

  auto fleet = svc.get("/api/v1/health/flags?severity=critical", "viewer");
  INFO(fleet.body);
  REQUIRE(fleet.status == 200);
  CHECK(fleet.json()["items"].size() == 2);
  auto per_gpu = svc.get("/api/v1/gpus/GPU-FL-0/flags", "viewer");
  REQUIRE(per_gpu.status == 200);
  REQUIRE(per_gpu.json()["items"].size() == 2);
  CHECK(per_gpu.json()["items"][0]["reason"] == "XID 79 at 2026-12-04T10:00:00Z");
  CHECK(per_gpu.json()["items"][0]["evidence"]["xid"] == 79);
  CHECK(per_gpu.json()["items"][0]["action"] == "drain");
  auto per_node = svc.get("/api/v1/nodes/" + std::to_string(node.id) + "/flags", "viewer");
  REQUIRE(per_node.status == 200);
  CHECK(per_node.json()["items"].size() == 2);  // GPU-FL-1 has no known node
  auto paged = svc.get("/api/v1/health/flags?limit=1", "viewer");
  REQUIRE(paged.status == 200);
  CHECK(paged.json()["items"].size() == 1);
  CHECK(paged.json()["next_cursor"].is_string());

  const std::string ack = "/api/v1/health/flags/" + std::to_string(id) + "/acknowledge";
  CHECK(svc.sendJson("POST", ack, json::object(), "viewer").status == 403);
  auto acked = svc.sendJson("POST", ack, {{"note", "looking"}}, "operator");
  INFO(acked.body);
  REQUIRE(acked.status == 200);
  CHECK(acked.json()["state"] == "acknowledged");
  CHECK(acked.json()["acknowledge_note"] == "looking");
  CHECK_FALSE(acked.json()["acknowledged_by"].get<std::string>().empty());
  CHECK(svc.sendJson("POST", ack, json::object(), "operator").status == 409);

  const std::string clear = "/api/v1/health/flags/" + std::to_string(id) + "/clear";
  auto cleared = svc.sendJson("POST", clear, {{"note", "reseated"}}, "operator");
  REQUIRE(cleared.status == 200);
  CHECK(cleared.json()["state"] == "cleared");
  CHECK(svc.get("/api/v1/health/flags?state=cleared", "viewer").json()["items"].size() == 1);
  CHECK(svc.sendJson("POST", clear, json::object(), "operator").status == 409);
  CHECK(svc.sendJson("POST", "/api/v1/health/flags/999999/clear", json::object(), "operator")
            .status == 404);
  CHECK(inventory_test::scalar(svc.databaseUrl(),
                               "SELECT count(*) FROM audit_log WHERE path LIKE "
                               "'/api/v1/health/flags/%'") != "0");

  auto bad_state = svc.get("/api/v1/health/flags?state=closed", "viewer");
  CHECK(bad_state.status == 400);
  CHECK(bad_state.json()["field"] == "state");
  CHECK(svc.get("/api/v1/health/flags?severity=loud", "viewer").status == 400);
  CHECK(svc.sendJson("POST", clear, {{"note", 5}}, "operator").status == 400);
}
