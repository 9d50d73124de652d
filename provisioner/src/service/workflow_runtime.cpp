#include "workflow_runtime.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "provisioner/http/logging.hpp"
#include "redfish/transport.hpp"
#include "workflows/decommission/certificate_key.hpp"
#include "workflows/decommission/workflow.hpp"
#include "workflows/discovery.hpp"
#include "workflows/engine.hpp"
#include "workflows/health_flag_drain.hpp"
#include "workflows/health_sweep.hpp"
#include "workflows/health_upkeep.hpp"
#include "workflows/lifecycle.hpp"
#include "workflows/reinventory.hpp"
#include "workflows/rollout.hpp"

namespace provisioner::service {
namespace {

// The first line of a secret file, without its line ending. The value never reaches a log.
common::Result<std::string> readSecretLine(const std::string& path, const char* flag) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return common::fail(common::invalidArgument("unreadable_file",
                                                std::string(flag) + ": cannot read " + path, flag));
  }
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  return line;
}

common::Result<std::optional<workflows::FactoryCredentials>> factoryCredentials(
    const ServiceOptions& o) {
  if (o.factory_credentials_file.empty()) return std::optional<workflows::FactoryCredentials>{};
  PROV_ASSIGN(auto line, readSecretLine(o.factory_credentials_file, "--factory-credentials-file"));
  const auto colon = line.find(':');
  if (colon == std::string::npos || colon == 0) {
    return common::fail(common::invalidArgument(
        "invalid_file", "--factory-credentials-file must hold one line USER:PASSWORD",
        "--factory-credentials-file"));
  }
  return std::optional<workflows::FactoryCredentials>(
      workflows::FactoryCredentials{line.substr(0, colon), line.substr(colon + 1)});
}

common::Result<workflows::LifecycleSettings> lifecycleSettings(const ServiceOptions& o,
                                                               const std::string& public_url) {
  workflows::LifecycleSettings s;
  s.timings.time_scale = o.lifecycle_time_scale;
  s.public_url = public_url;
  s.max_active_per_rack = o.max_active_per_rack;
  s.max_active_per_site = o.max_active_per_site;
  PROV_ASSIGN(s.default_factory_credentials, factoryCredentials(o));
  s.bmc_tls_insecure = o.bmc_tls_insecure;
  s.bmc_port = o.bmc_port;
  s.boot_target = o.boot_target;
  s.handoff_url = o.handoff_url;
  s.handoff_format = o.handoff_format;
  if (!o.handoff_token_file.empty()) {
    PROV_ASSIGN(s.handoff_token, readSecretLine(o.handoff_token_file, "--handoff-token-file"));
  }
  return s;
}

common::Result<workflows::RolloutSettings> rolloutSettings(const ServiceOptions& o) {
  workflows::RolloutSettings s;
  s.drain.url = o.drain_url;
  s.drain.format = o.drain_format;
  s.timings.quick_check_seconds = o.quick_check_seconds;
  if (!o.drain_token_file.empty()) {
    PROV_ASSIGN(s.drain.token, readSecretLine(o.drain_token_file, "--drain-token-file"));
  }
  return s;
}

// The certificate key lives beside the service's other state (created on first start).
common::Result<workflows::DecommissionSettings> decommissionSettings(const ServiceOptions& o) {
  workflows::DecommissionSettings s;
  s.wipe_channel = o.wipe_channel;
  s.min_gpu_coverage = o.wipe_min_gpu_coverage;
  PROV_ASSIGN(auto key, workflows::decommission::loadOrCreateSigningKey(o.state_dir));
  s.signing_key = std::make_shared<const images::KeyPair>(std::move(key));
  return s;
}

// At debug level, each BMC attempt that failed or is tried again, with the wait before the
// next try (the backoff, or the BMC's Retry-After): what tells why a step sat on one BMC. The
// URL carries no credential (those travel in headers and bodies).
void logBmcTrouble(const redfish::TraceEvent& e) {
  const bool failed = e.status == 0 || e.status >= 400;
  if ((!failed && !e.willRetry) || !http::shouldLog(spdlog::level::debug)) return;
  http::logEvent(spdlog::level::debug, "bmc attempt",
                 {{"method", e.method},
                  {"url", e.url},
                  {"status", e.status},
                  {"curl_code", e.curlCode},
                  {"attempt", e.attempt},
                  {"retry_in_ms", e.willRetry ? e.retryIn.count() : -1}});
}

}  // namespace

WorkflowRuntime::~WorkflowRuntime() {
  stop();
}

void WorkflowRuntime::start() {
  if (!engine) return;
  engine->start();
  // Every replica asks; the open run of (kind, subject) makes it one run for the fleet.
  if (reinventory) {
    if (auto started = workflows::ensureReinventoryRun(*engine); !started) {
      spdlog::warn("firmware re-inventory not started: {}", started.error().message);
    }
  }
  if (health_sweep) {
    if (auto started = workflows::ensureHealthSweepRun(*engine); !started) {
      spdlog::warn("out-of-band health sweep not started: {}", started.error().message);
    }
  }
  if (auto started = workflows::ensureHealthUpkeepRun(*engine); !started) {
    spdlog::warn("GPU health upkeep not started: {}", started.error().message);
  }
}

void WorkflowRuntime::stop() {
  if (engine) engine->stop();
  if (sweeper) sweeper->stop();
}

std::shared_ptr<workflows::Clock> healthClock(const ServiceOptions& o) {
  if (o.health_time_scale == 1.0) return workflows::systemClock();
  const auto epoch = o.health_clock_epoch
                         ? workflows::TimePoint(std::chrono::seconds(*o.health_clock_epoch))
                         : std::chrono::system_clock::now();
  spdlog::warn("the GPU health history's clock runs {}x from {} (a simulated fleet only)",
               o.health_time_scale,
               std::chrono::duration_cast<std::chrono::seconds>(epoch.time_since_epoch()).count());
  return std::make_shared<workflows::ScaledClock>(epoch, o.health_time_scale);
}

common::Result<std::unique_ptr<WorkflowRuntime>> makeWorkflowRuntime(
    const ServiceOptions& o, inventory::DatabasePtr db,
    std::shared_ptr<const common::SecretBox> secrets, const std::string& public_url,
    http::MetricsRegistry& metrics, std::shared_ptr<images::ArtifactStore> artifacts,
    std::shared_ptr<workflows::Clock> health_clock) {
  PROV_ASSIGN(auto settings, lifecycleSettings(o, public_url));
  PROV_ASSIGN(auto rollout, rolloutSettings(o));
  rollout.artifacts = std::move(artifacts);
  PROV_ASSIGN(auto decommission, decommissionSettings(o));
  auto rt = std::make_unique<WorkflowRuntime>();
  redfish::TransportOptions transport_options;
  transport_options.maxInFlightTotal = 4096;
  transport_options.requestTimeout = std::chrono::seconds(o.bmc_request_timeout_s);
  transport_options.trace = logBmcTrouble;
  rt->transport = std::make_shared<redfish::Transport>(transport_options);
  workflows::EngineOptions engine_options;
  engine_options.owner = o.replica_name;
  engine_options.workers = o.workflow_workers;
  engine_options.lease = std::chrono::seconds(o.workflow_lease_s);  // heartbeat: a third of it
  auto clock = workflows::systemClock();
  rt->engine = std::make_shared<workflows::Engine>(db, clock, engine_options);
  const workflows::LifecycleDeps deps{db, std::move(secrets), rt->transport, clock};
  rt->engine->registerWorkflow(
      workflows::nodeDecommissionWorkflow(deps, settings, rollout, std::move(decommission)));
  rt->engine->registerWorkflow(workflows::gpuFlagDrainWorkflow(deps, settings, rollout));
  rt->engine->registerWorkflow(workflows::gpuFlagReleaseWorkflow(deps, settings, rollout));
  rt->engine->registerWorkflow(workflows::gpuFlagResetWorkflow(deps, settings, rollout));
  rt->engine->registerWorkflow(workflows::gpuFlagBurnInWorkflow(deps, settings, rollout));
  workflows::registerRolloutWorkflows(*rt->engine, deps, settings, std::move(rollout));
  workflows::ReinventoryOptions reinventory;
  reinventory.interval = std::chrono::hours(std::max(1, o.firmware_reinventory_hours));
  reinventory.per_minute = o.firmware_reinventory_per_minute;
  rt->engine->registerWorkflow(workflows::firmwareReinventoryWorkflow(deps, settings, reinventory));
  rt->reinventory = o.firmware_reinventory_hours > 0;
  workflows::HealthSweepOptions health_sweep;
  health_sweep.agent_interval = std::chrono::seconds(o.monitor_interval_s);
  health_sweep.per_minute = o.health_sweep_per_minute;
  health_sweep.health_clock = health_clock;
  rt->engine->registerWorkflow(workflows::gpuHealthSweepWorkflow(deps, settings, health_sweep));
  rt->health_sweep = o.health_sweep_per_minute > 0;
  workflows::HealthUpkeepOptions upkeep;
  upkeep.health_clock = health_clock;
  if (o.health_time_scale > 1) {  // its 5 minutes on the health clock, at most every 2 real s
    upkeep.interval =
        std::max(workflows::Duration(2000),
                 workflows::Duration(static_cast<long long>(
                     static_cast<double>(upkeep.interval.count()) / o.health_time_scale)));
  }
  workflows::Engine* owner = rt->engine.get();  // the engine outlives the workflows it runs
  upkeep.start_run = [owner](const workflows::StartRequest& request) {
    return owner->start(request);
  };
  rt->engine->registerWorkflow(workflows::gpuHealthUpkeepWorkflow(db, upkeep));
  rt->engine->registerWorkflow(workflows::nodeLifecycleWorkflow(deps, std::move(settings)));
  rt->sweeper = std::make_shared<workflows::Sweeper>(db, rt->engine);
  std::weak_ptr<workflows::Engine> weak = rt->engine;
  metrics.addCollector([weak](std::string& out) {
    if (auto engine = weak.lock()) engine->renderMetrics(out);
  });
  spdlog::info("workflow engine: replica {}, {} workers, lifecycle time scale {}",
               rt->engine->owner(), o.workflow_workers, o.lifecycle_time_scale);
  return rt;
}

}  // namespace provisioner::service
