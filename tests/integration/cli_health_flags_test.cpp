// provisionerctl health flags / acknowledge / clear / rules / sweeps and nodes resident-tasks
// against a recording fake service.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "integration/cli_fake_server.hpp"

using testing::FakeApiServer;
using testing::runCtlAt;

TEST_CASE("health flags lists a GPU's flags and clear posts the note", "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/gpus/GPU-1/flags",
                {200, R"({"items":[{"id":4,"serial":"GPU-1","rule":"nvidia.xid_drain",)"
                      R"("severity":"critical","action":"drain","state":"open",)"
                      R"("raised_at":"2026-12-04T12:00:00.000000Z","reason":"XID 79"}],)"
                      R"("next_cursor":null})"});
  server.answer("POST", "/api/v1/health/flags/4/clear",
                {200, R"({"id":4,"state":"cleared","cleared_by":"alice"})"});

  auto run =
      runCtlAt(server.url(), "tok", {"health", "flags", "--gpu", "GPU-1", "--state", "open"});
  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out.find("nvidia.xid_drain") != std::string::npos);
  CHECK(run.out.find("XID 79") != std::string::npos);

  auto cleared = runCtlAt(server.url(), "tok", {"health", "clear", "4", "--note", "reseated"});
  CHECK(cleared.code == 0);
  CHECK(cleared.out == "flag 4 cleared by alice\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].target.find("state=open") != std::string::npos);
  CHECK(nlohmann::json::parse(requests[1].body) == nlohmann::json{{"note", "reseated"}});

  auto both = runCtlAt(server.url(), "tok", {"health", "flags", "--gpu", "G", "--node", "1"});
  CHECK(both.code == 64);
}

TEST_CASE("health gpu shows a GPU's history point by point at the resolution asked",
          "[integration][cli]") {
  FakeApiServer server;
  server.answer(
      "GET", "/api/v1/gpus/GPU-9/health",
      {200, R"({"serial":"GPU-9","from":"2026-12-01T00:00:00Z","to":"2026-12-04T00:00:00Z",)"
            R"("resolution":"daily","points":[{"at":"2026-12-02T00:00:00Z","node_id":3,)"
            R"("samples":360,"temperature_c":{"min":60,"avg":66.3,"max":71,"n":360},)"
            R"("hbm_temperature_c":null,"power_w":{"min":700,"avg":712.4,"max":730,"n":360},)"
            R"("sm_clock_mhz":null,"gpu_utilization_pct":{"min":90,"avg":98,"max":100,"n":360},)"
            R"("ecc_corrected":750,"xids":0,"pcie_replays":2,"health_class":"healthy"}]})"});
  auto run = runCtlAt(
      server.url(), "tok",
      {"health", "gpu", "GPU-9", "--from", "2026-12-01T00:00:00Z", "--resolution", "daily"});
  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out.find("daily points") != std::string::npos);
  CHECK(run.out.find("66.3/71.0") != std::string::npos);  // temperature avg/max
  CHECK(run.out.find("712/730") != std::string::npos);    // power
  CHECK(run.out.find("750") != std::string::npos);        // new corrected ECC errors that day
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].target.find("resolution=daily") != std::string::npos);
  CHECK(requests[0].target.find("from=2026-12-01T00%3A00%3A00Z") != std::string::npos);
}

TEST_CASE("health sweeps lists the silent nodes and asks for the unreachable ones",
          "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/health/sweeps",
                {200, R"({"items":[{"node_id":9,"node_state":"ready",)"
                      R"("attempted_at":"2026-12-07T10:00:00.000000Z","swept_at":null,)"
                      R"("reachable":false,"gpus":0,"error":"bmc_unreachable: refused",)"
                      R"("last_reading":"2026-12-07T09:00:00.000000Z"}],"next_cursor":null})"});
  auto run = runCtlAt(server.url(), "tok", {"health", "sweeps", "--unreachable"});
  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out.find("unreachable") != std::string::npos);
  CHECK(run.out.find("bmc_unreachable: refused") != std::string::npos);
  CHECK(run.out.find("2026-12-07T09:00:00") != std::string::npos);
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].target.find("reachable=false") != std::string::npos);
}

TEST_CASE("health rules shows the policy; nodes resident-tasks shows the node's GPU resets",
          "[integration][cli]") {
  FakeApiServer server;
  server.answer("GET", "/api/v1/health/rules",
                {200, R"({"rules":[{"id":"nvidia.remap_pending","kind":"remap_pending",)"
                      R"("severity":"warning","action":"reset_at_idle","source":"NVIDIA",)"
                      R"("parameters":{}},{"id":"learned.ecc_rate","kind":"learned_ecc",)"
                      R"("severity":"warning","action":"rerun_burn_in","source":"Page",)"
                      R"("parameters":{"h":8,"days":3}}]})"});
  server.answer("GET", "/api/v1/nodes/7/resident-tasks",
                {200, R"({"items":[{"id":3,"kind":"gpu_reset","gpu_serial":"GPU-7",)"
                      R"("flag_id":12,"state":"failed","created_at":"2026-12-07T10:00:00Z",)"
                      R"("finished_at":"2026-12-07T10:01:00Z","message":"GPU is in use"}]})"});
  auto rules = runCtlAt(server.url(), "tok", {"health", "rules"});
  CHECK(rules.err.empty());
  CHECK(rules.code == 0);
  CHECK(rules.out.find("reset_at_idle") != std::string::npos);
  CHECK(rules.out.find("days=3, h=8") != std::string::npos);
  auto tasks = runCtlAt(server.url(), "tok", {"nodes", "resident-tasks", "7"});
  CHECK(tasks.code == 0);
  CHECK(tasks.out.find("gpu_reset") != std::string::npos);
  CHECK(tasks.out.find("GPU is in use") != std::string::npos);
  CHECK(runCtlAt(server.url(), "tok", {"nodes", "resident-tasks"}).code == 64);
}
