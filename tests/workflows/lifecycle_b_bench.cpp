#include "lifecycle_b_bench.hpp"

#include <catch2/catch.hpp>

#include "inventory/images.hpp"
#include "inventory/migrations.hpp"
#include "inventory/nodes.hpp"
#include "inventory/sites.hpp"
#include "support/test_database.hpp"

namespace lifecycle_b {
namespace {

template <class T>
T required(common::Result<T> result) {
  INFO((result ? std::string("ok") : result.error().code + ": " + result.error().message));
  REQUIRE(result.ok());
  return std::move(*result);
}

}  // namespace

Bench::Bench(BenchOptions options) : clock_(std::make_shared<workflows::FakeClock>()) {
  const auto url = testing::freshDatabaseUrl();
  auto files = required(inventory::loadMigrations(testing::migrationsDir()));
  required(inventory::applyMigrations(url, files));
  db_ = required(inventory::Database::connect(url, 4));

  sim::FleetSpec spec;
  spec.tls = false;
  spec.port = 0;
  spec.addressBase = "127.43.0.1";
  sim::RackSpec rack;
  rack.name = "r01";
  rack.nodes = 1;
  rack.profile = options.profile;
  rack.faults = required(sim::applyFaultsJson({}, options.faults));
  spec.racks.push_back(rack);
  sim::FleetOptions fleet_options;
  fleet_options.controlPort = std::nullopt;
  fleet_ = required(sim::Fleet::start(spec, fleet_options));
  const auto endpoint = fleet_->bmcs().front();
  bmc_id_ = endpoint.id;

  redfish::TransportOptions transport_options;
  transport_options.maxAttempts = 2;
  transport_options.backoffBase = std::chrono::milliseconds(10);
  transport_options.requestTimeout = std::chrono::milliseconds(3000);
  transport_options.connectTimeout = std::chrono::milliseconds(1000);
  transport_options.trace = [trace = trace_](const redfish::TraceEvent& e) {
    if (e.attempt != 1) return;
    std::string seen(e.url);
    const auto path = seen.find("/redfish");
    std::lock_guard lock(trace->mutex);
    trace->requests.push_back(std::string(e.method) + " " +
                              (path == std::string::npos ? seen : seen.substr(path)));
  };
  transport_ = std::make_shared<redfish::Transport>(transport_options);

  required(inventory::createSite(*db_, "dc1", "bench"));
  inventory::RackSpec rack_spec;
  rack_spec.site = "dc1";
  rack_spec.name = "r01";
  const auto made = required(inventory::createRack(*db_, rack_spec));
  inventory::NodeSpec node;
  node.chassis_serial =
      endpoint.identity.chassisSerial.empty() ? "SN-BENCH-1" : endpoint.identity.chassisSerial;
  node.hardware_model = "bench-model";
  node.bmc_address = endpoint.address;
  node.rack_id = made.id;
  node.state = "inspected";
  node_id_ = required(inventory::createNode(*db_, node, "test")).id;

  inventory::HardwareProfile profile;
  profile.name = "bench";
  profile.model = "bench-model";
  profile.channel = "stable";
  profile.expected_gpus = 8;
  profile.bios_settings_json = options.bios.dump();
  profile.min_firmware_json = options.min_firmware.dump();
  required(inventory::upsertHardwareProfile(*db_, profile, "test"));

  env_.deps.db = db_;
  env_.deps.transport = transport_;
  env_.deps.clock = clock_;
  env_.settings.default_factory_credentials =
      workflows::FactoryCredentials{endpoint.credentials.username, endpoint.credentials.password};
  env_.settings.public_url = "http://127.0.0.1:9";
  data_ = {{"base_url", endpoint.baseUrl},
           {"system_path", options.system_path},
           {"profile", "bench"},
           {"node_id", node_id_}};
}

Bench::~Bench() {
  transport_->shutdown();
  fleet_->stop();
}

std::string describe(const workflows::StepOutcome& o) {
  return "kind " + std::to_string(static_cast<int>(o.kind)) + " step " + o.step + " reason " +
         o.reason + " waiting_for " + o.waiting_for + ": " + o.message;
}

workflows::RunInfo Bench::runInfo(const std::string& step) const {
  workflows::RunInfo info;
  info.id = 1;
  info.kind = workflows::kNodeLifecycle;
  info.subject = "bench";
  info.step = step;
  info.node_id = node_id_;
  info.site = "dc1";
  info.rack = "r01";
  return info;
}

workflows::StepOutcome Bench::run(const std::string& name, const StepFn& step) {
  workflows::StepContext ctx(runInfo(name), data_, clock_->now());
  auto outcome = step(env_, ctx);
  data_ = ctx.data();
  for (const auto& e : ctx.events()) events_.push_back(e.kind);
  return outcome;
}

workflows::StepOutcome Bench::runStalled(const std::string& name, const StepFn& step,
                                         workflows::Duration stall) {
  workflows::StepContext ctx(runInfo(name), data_, clock_->now());
  ctx.installClock([this, stall] { return clock_->now() + stall; });
  auto outcome = step(env_, ctx);
  advance(stall);
  data_ = ctx.data();
  for (const auto& e : ctx.events()) events_.push_back(e.kind);
  return outcome;
}

namespace {
struct KilledAtIntent {};
}  // namespace

int Bench::killedRun(const std::string& name, const StepFn& step, int die_at_intent,
                     bool intent_written) {
  workflows::StepContext ctx(runInfo(name), data_, clock_->now());
  int intents = 0;
  nlohmann::json persisted = data_;
  workflows::LeaseFence fence;
  fence.confirm = [] { return true; };
  fence.record = [&](const nlohmann::json& context) {
    const bool dies = ++intents == die_at_intent;
    if (!dies || intent_written) persisted = context;
    if (dies) throw KilledAtIntent{};
    return true;
  };
  ctx.installFence(std::move(fence));
  try {
    (void)step(env_, ctx);
  } catch (const KilledAtIntent&) {
  }
  data_ = persisted;
  return intents;
}

int Bench::runAndDie(const std::string& name, const StepFn& step) {
  return killedRun(name, step, 0);
}

int Bench::runAndDieAtIntent(const std::string& name, const StepFn& step, int nth) {
  return killedRun(name, step, nth);
}

int Bench::runAndDieBeforeIntent(const std::string& name, const StepFn& step, int nth) {
  return killedRun(name, step, nth, false);
}

nlohmann::json Bench::snapshot() const {
  return required(fleet_->snapshot(bmc_id_));
}

std::vector<std::string> Bench::requests() const {
  std::lock_guard lock(trace_->mutex);
  return trace_->requests;
}

std::size_t Bench::requestCount(const std::string& method, const std::string& path_part) const {
  std::size_t n = 0;
  for (const auto& r : requests()) {
    if (r.rfind(method + " ", 0) == 0 && r.find(path_part) != std::string::npos) ++n;
  }
  return n;
}

void Bench::patchFaults(const nlohmann::json& patch) {
  required(fleet_->patchFaults(bmc_id_, patch));
}

std::string Bench::nodeState() const {
  return required(inventory::getNode(*db_, node_id_)).state;
}

void Bench::advance(workflows::Duration by) {
  clock_->advance(by);
  fleet_->clock().advance(std::chrono::duration<double>(by).count());
}

}  // namespace lifecycle_b
