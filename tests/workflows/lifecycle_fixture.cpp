#include "workflows/lifecycle_fixture.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <catch2/catch.hpp>
#include <pqxx/pqxx>

#include "inventory/images.hpp"
#include "inventory/migrations.hpp"
#include "inventory/nodes.hpp"
#include "inventory/purchase_orders.hpp"
#include "inventory/sites.hpp"
#include "inventory/workflow_runs.hpp"
#include "support/test_database.hpp"

namespace lifecycle_test {
namespace {

template <class T>
T need(common::Result<T> result, const char* what) {
  if (!result) {
    throw std::runtime_error(std::string(what) + ": " + result.error().code + ": " +
                             result.error().message);
  }
  return std::move(result).value();
}

// Each fleet of the process gets its own /16 of loopback addresses (not those of
// tests/redfish/support, which start at 127.60).
std::string nextAddressBase() {
  static std::atomic<int> next{0};
  return "127." + std::to_string(180 + next++ % 60) + ".0.1";
}

redfish::TransportOptions quickTransport() {
  redfish::TransportOptions o;
  o.requestTimeout = std::chrono::seconds(5);
  o.connectTimeout = std::chrono::seconds(2);
  o.maxAttempts = 3;
  o.backoffBase = std::chrono::milliseconds(5);
  o.backoffCap = std::chrono::milliseconds(50);
  o.retryAfterCap = std::chrono::milliseconds(50);
  o.closeTimeout = std::chrono::seconds(2);
  if (std::getenv("LIFECYCLE_TRACE")) {
    o.trace = [](const redfish::TraceEvent& e) {
      std::fprintf(stderr, "trace %.*s %.*s -> %ld (attempt %d)\n", int(e.method.size()),
                   e.method.data(), int(e.url.size()), e.url.data(), e.status, e.attempt);
    };
  }
  return o;
}

std::unique_ptr<sim::Fleet> startFleet(const FixtureOptions& o) {
  nlohmann::json spec = {
      {"seed", 11},
      {"time_scale", o.sim_time_scale},
      {"tls", o.tls},
      {"port", 0},
      {"address_base", nextAddressBase()},
      {"credentials", {{"username", "root"}, {"password", "Factory-0penBmc"}}},
      {"racks", {{{"name", "r01"}, {"nodes", o.nodes}, {"profile", o.profile}}}}};
  auto parsed = need(sim::parseFleetSpec(spec), "fleet spec");
  sim::FleetOptions fleet_options;
  fleet_options.controlPort = std::nullopt;
  return need(sim::Fleet::start(parsed, fleet_options), "fleet start");
}

inventory::PurchaseOrderSpec purchaseOrder(const LifecycleFixture& f) {
  inventory::PurchaseOrderSpec po;
  po.po_number = f.po_number;
  po.vendor = "NVIDIA";
  for (int n = 1; n <= f.options.nodes; ++n) {
    if (f.options.unordered.count(n) != 0) continue;
    auto bmc = f.bmc(n);
    inventory::ExpectedAssetSpec unit;
    unit.chassis_serial = bmc.identity.chassisSerial;
    unit.model = bmc.identity.model;
    unit.bmc_mac = bmc.identity.bmcMac;
    unit.factory_username = bmc.credentials.username;
    unit.factory_password = bmc.credentials.password;
    unit.gpu_count = static_cast<int>(bmc.identity.gpuSerials.size());
    unit.rack = f.rack;
    unit.u_position = 2 * n;
    po.assets.push_back(std::move(unit));
  }
  return po;
}

}  // namespace

LifecycleFixture::LifecycleFixture(FixtureOptions o) : options(std::move(o)) {
  db_url = testing::freshDatabaseUrl();
  auto files = need(inventory::loadMigrations(testing::migrationsDir()), "migrations");
  need(inventory::applyMigrations(db_url, files), "apply migrations");
  db = need(inventory::Database::connect(db_url, 4), "connect");
  secrets = std::make_shared<const common::SecretBox>(
      need(common::SecretBox::fromKeyText(std::string(64, 'b')), "secret box"));
  fleet = startFleet(options);
  transport = std::make_shared<redfish::Transport>(quickTransport());
  clock = std::make_shared<workflows::FakeClock>(std::chrono::system_clock::now());

  need(inventory::createSite(*db, site, "lifecycle tests"), "site");
  inventory::RackSpec rack_spec;
  rack_spec.site = site;
  rack_spec.name = rack;
  rack_id = need(inventory::createRack(*db, rack_spec), "rack").id;
  need(inventory::createPurchaseOrder(*db, *secrets, purchaseOrder(*this)), "purchase order");

  inventory::HardwareProfile profile;
  profile.name = profile_name;
  profile.model = bmc(1).identity.model;
  profile.channel = "stable";
  profile.expected_gpus = static_cast<int>(bmc(1).identity.gpuSerials.size());
  need(inventory::upsertHardwareProfile(*db, profile, "test"), "profile");

  env.deps = workflows::LifecycleDeps{db, secrets, transport, clock};
  env.settings.timings.time_scale = options.lifecycle_time_scale;
  env.settings.public_url = "http://provisioner.test:8080";
}

LifecycleFixture::~LifecycleFixture() {
  if (transport) transport->shutdown();
  if (fleet) fleet->stop();
}

std::string LifecycleFixture::bmcId(int number) {
  return std::string("r01-n") + (number < 10 ? "0" : "") + std::to_string(number);
}

sim::BmcEndpoint LifecycleFixture::bmc(int number) const {
  return need(fleet->bmc(bmcId(number)), "bmc");
}

workflows::StepContext LifecycleFixture::context(int number) const {
  auto b = bmc(number);
  workflows::RunInfo run;
  run.id = number;
  run.kind = workflows::kNodeLifecycle;
  run.subject = workflows::bmcSubject(b.identity.bmcMac, b.address);
  run.step = "match";
  nlohmann::json data = {
      {"bmc_address", b.address}, {"bmc_mac", b.identity.bmcMac}, {"base_url", b.baseUrl}};
  return workflows::StepContext(std::move(run), std::move(data), clock->now());
}

void LifecycleFixture::patchFaults(int number, const nlohmann::json& patch) {
  need(fleet->patchFaults(bmcId(number), patch), "faults");
}

nlohmann::json LifecycleFixture::snapshot(int number) const {
  return need(fleet->snapshot(bmcId(number)), "snapshot");
}

std::string LifecycleFixture::scalar(const std::string& sql) const {
  pqxx::connection c(db_url);
  pqxx::nontransaction tx(c);
  auto r = tx.exec(sql);
  if (r.empty()) return "";
  return r[0][0].is_null() ? "<null>" : r[0][0].c_str();
}

inventory::Id LifecycleFixture::addReadyNode(int number, const std::string& model,
                                             const std::string& state) {
  const auto b = bmc(number);
  inventory::NodeSpec spec;
  spec.chassis_serial = b.identity.chassisSerial;
  spec.hardware_model = model;
  spec.bmc_address = b.address;
  spec.bmc_mac = b.identity.bmcMac;
  spec.rack_id = rack_id;
  spec.state = state;
  const auto node = need(inventory::createNode(*db, spec, "test"), "create node");
  inventory::NewWorkflowRun run;
  run.kind = workflows::kNodeLifecycle;
  run.subject = "bmc:" + b.identity.bmcMac;
  run.node_id = node.id;
  run.step = "handoff";
  run.now = clock->now();
  run.context_json = nlohmann::json{{"base_url", b.baseUrl},
                                    {"bmc_address", b.address},
                                    {"bmc_mac", b.identity.bmcMac},
                                    {"system_path", "/redfish/v1/Systems/DGX"},
                                    {"chassis_path", "/redfish/v1/Chassis/DGX"}}
                         .dump();
  const auto created = need(inventory::createWorkflowRun(*db, run), "create run");
  need(inventory::cancelWorkflowRun(*db, created.run.id, "test", "done", clock->now()),
       "finish run");
  return node.id;
}

Driven drive(StepFn step, const workflows::lifecycle::Env& env, workflows::StepContext& ctx,
             int max_calls) {
  Driven driven;
  ctx = workflows::StepContext(ctx.run(), ctx.data(), ctx.now());  // events of earlier drives
  auto* fake = dynamic_cast<workflows::FakeClock*>(env.deps.clock.get());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    driven.outcome = step(env, ctx);
    ++driven.calls;
    for (const auto& e : ctx.events()) driven.events.push_back(e);
    if (driven.outcome.kind != workflows::StepOutcome::Kind::kWait) return driven;
    if (driven.calls >= max_calls || std::chrono::steady_clock::now() > deadline) return driven;
    // The simulator's clock runs in real time (scaled): give it the wait, capped, before the
    // step looks again.
    auto pause = driven.outcome.until - ctx.now();
    pause = std::clamp<decltype(pause)>(pause, std::chrono::milliseconds(1),
                                        std::chrono::milliseconds(50));
    std::this_thread::sleep_for(pause);
    if (fake) fake->set(std::max(driven.outcome.until, fake->now()));
    const auto now = fake ? fake->now() : std::chrono::system_clock::now();
    ctx = workflows::StepContext(ctx.run(), ctx.data(), now);
  }
}

std::string kindName(const workflows::StepOutcome& outcome) {
  switch (outcome.kind) {
    case workflows::StepOutcome::Kind::kNext:
      return "next";
    case workflows::StepOutcome::Kind::kWait:
      return "wait";
    case workflows::StepOutcome::Kind::kRetry:
      return "retry";
    case workflows::StepOutcome::Kind::kFail:
      return "fail";
    case workflows::StepOutcome::Kind::kSucceed:
      return "succeed";
  }
  return "?";
}

std::string describe(const workflows::StepOutcome& outcome) {
  return kindName(outcome) + " " + outcome.step + outcome.reason + ": " + outcome.message + " " +
         outcome.detail.dump();
}

}  // namespace lifecycle_test
