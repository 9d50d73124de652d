// runAgent: the agent's whole life on a node, from facts to the verdict.
#include <ostream>

#include <nlohmann/json.hpp>

#include "agent/agent_main.hpp"
#include "agent/drives_flow.hpp"
#include "agent/monitor.hpp"
#include "agent/runner.hpp"
#include "agent/sim_backend.hpp"
#include "agent/wipe_runner.hpp"

namespace agent {
namespace {

void logError(std::ostream& log, const std::string& step, const common::Error& error) {
  log << "provisioner-agent: " << step << " failed: " << error.code << ": " << error.message
      << "\n";
}

// Errors after which nothing the agent sends will be taken (token gone, task closed).
bool isFatal(const common::Error& error) {
  using common::ErrorKind;
  return error.kind != ErrorKind::kUnavailable && error.kind != ErrorKind::kTimeout &&
         error.kind != ErrorKind::kInternal && error.kind != ErrorKind::kProtocol;
}

Facts collectFacts(GpuBackend& backend, const HostFacts& host, std::string& discover_error,
                   std::ostream& log) {
  Facts facts;
  facts.host_serial = host.host_serial;
  facts.agent_version = std::string(kAgentVersion);
  facts.backend = backend.name();
  facts.nics = host.nics;
  auto gpus = backend.discover();
  if (gpus) {
    facts.gpus = std::move(gpus).value();
  } else {
    discover_error = "GPU discovery failed: " + gpus.error().message;
    log << "provisioner-agent: " << discover_error << "\n";
  }
  log << "provisioner-agent: " << facts.gpus.size() << " GPU(s), " << facts.nics.size()
      << " NIC(s), backend " << facts.backend << "\n";
  return facts;
}

// Runs the burn-in, posting progress; a fatal progress error stops the run and is returned.
TaskResult runTask(const Task& task, const Facts& facts, const std::string& discover_error,
                   GpuBackend& backend, ServiceClient& client, std::optional<common::Error>& fatal,
                   std::ostream& log) {
  if (!discover_error.empty()) return TaskResult{task.id, {}, {}, discover_error, std::nullopt};
  auto on_progress = [&](const Progress& progress) {
    auto posted = client.postProgress(task.id, progress);
    if (posted) return true;
    if (isFatal(posted.error())) {
      fatal = posted.error();
      return false;
    }
    logError(log, "progress report", posted.error());  // the run matters more than progress
    return true;
  };
  log << "provisioner-agent: burn-in task " << task.id << ": " << task.plan.tests.size()
      << " test(s) on " << facts.gpus.size() << " GPU(s)\n";
  return runBurnIn(task.id, task.plan, backend, facts.gpus, on_progress);
}

void logDrives(const DrivesWipe& wipe, std::ostream& log) {
  for (const DriveReport& drive : wipe.drives) {
    log << "provisioner-agent: drive " << drive.serial << ": " << drive.method << " ("
        << drive.nist_level << "), " << drive.result
        << (drive.error.empty() ? "" : ": " + drive.error) << "\n";
  }
  for (const std::string& serial : wipe.skipped) {
    log << "provisioner-agent: drive " << serial << ": left to the service (out of band)\n";
  }
}

// The GPUs through runWipe, then every drive but the skipped ones; facts in the report, the
// service judges. GPU discovery failing does not stop the drives.
TaskResult runWipeTask(const Task& task, const Facts& facts, const std::string& discover_error,
                       GpuBackend& backend, const AgentDrives& drives, std::ostream& log) {
  log << "provisioner-agent: wipe task " << task.id << ": " << facts.gpus.size() << " GPU(s)\n";
  TaskResult result{task.id, {}, {}, discover_error, std::nullopt};
  WipeReport report = runWipe(task.wipe, backend, facts.gpus, std::string(kAgentVersion));
  if (drives.backend == nullptr || drives.clock == nullptr) {
    log << "provisioner-agent: no drive backend on this host: drives are not erased in band\n";
  } else {
    DriveEraseOptions options = drives.options;
    options.tool_version = std::string(kAgentVersion);
    DrivesWipe wiped = wipeDrives(*drives.backend, task.wipe, *drives.clock, options);
    logDrives(wiped, log);
    report.drives = std::move(wiped.drives);
    if (!wiped.error.empty()) {
      result.error += (result.error.empty() ? "" : "; ") + wiped.error;
    }
  }
  result.wipe = std::move(report);
  return result;
}

int postAndReport(const TaskResult& result, ServiceClient& client, std::ostream& log) {
  auto ack = client.postResult(result);
  if (!ack) {
    logError(log, "posting the result", ack.error());
    return kExitFailure;
  }
  log << summarizeVerdict(*ack);
  return kExitOk;
}

// Before the result, while the task and its session are open: the node leaves burn-in with the
// credential its resident monitor reports with. A failure costs the monitor, not the burn-in.
void enrollMonitor(const AgentOptions& options, ServiceClient& client, std::ostream& log) {
  if (options.state_dir.empty()) return;
  auto enrolled =
      enrollForMonitor(client, options.state_dir, {options.service_url, options.node_id});
  if (!enrolled) {
    logError(log, "enrolling the monitor credential", enrolled.error());
    return;
  }
  log << "provisioner-agent: monitor credential stored in " << options.state_dir.string() << "\n";
}

}  // namespace

int runAgent(const AgentOptions& options, GpuBackend& backend, ServiceClient& client,
             std::ostream& log) {
  // Only the simulated host knows its drives; a real host's are not listed (docs/agent.md).
  VirtualEraseClock clock;
  AgentDrives drives;
  if (auto* sim = dynamic_cast<SimulatedGpuBackend*>(&backend)) {
    drives.backend = &sim->drives();
    drives.clock = &clock;
  }
  return runAgent(options, backend, drives, client, log);
}

int runAgent(const AgentOptions& options, GpuBackend& backend, const AgentDrives& drives,
             ServiceClient& client, std::ostream& log) {
  std::string discover_error;
  Facts facts = collectFacts(backend, options.host, discover_error, log);
  auto registration = client.registerNode(options.boot_token, facts);
  if (!registration) {
    logError(log, "registration", registration.error());
    return kExitFailure;
  }
  auto task = client.fetchTask();
  if (!task) {
    logError(log, "fetching the task", task.error());
    return kExitFailure;
  }
  if (task->kind == TaskKind::kNone) {
    log << "provisioner-agent: no task for this node\n";
    return kExitOk;
  }
  if (task->kind == TaskKind::kWipe) {
    TaskResult result = runWipeTask(*task, facts, discover_error, backend, drives, log);
    if (!result.error.empty()) log << "provisioner-agent: run errors: " << result.error << "\n";
    return postAndReport(result, client, log);
  }
  if (task->kind != TaskKind::kBurnIn) {
    std::string error = "task kind " + std::string(toString(task->kind)) +
                        " is not supported by agent " + std::string(kAgentVersion);
    log << "provisioner-agent: " << error << "\n";
    int code = postAndReport(TaskResult{task->id, {}, {}, error, std::nullopt}, client, log);
    return code == kExitOk ? kExitFailure : code;
  }
  std::optional<common::Error> fatal;
  TaskResult result = runTask(*task, facts, discover_error, backend, client, fatal, log);
  if (fatal) {
    logError(log, "progress report", *fatal);
    return kExitFailure;
  }
  if (!result.error.empty()) log << "provisioner-agent: run errors: " << result.error << "\n";
  enrollMonitor(options, client, log);
  return postAndReport(result, client, log);
}

std::string summarizeVerdict(const ResultAck& ack) {
  std::string task = "provisioner-agent: burn-in task " + std::to_string(ack.task_id);
  if (ack.already_accepted) return task + ": result already accepted by the service\n";
  std::string out = task + ": " + ack.state + "\n";
  auto verdict = nlohmann::json::parse(ack.verdict_json, nullptr, /*allow_exceptions=*/false);
  auto failures = verdict.is_object() ? verdict.find("failures") : verdict.end();
  if (!verdict.is_object() || failures == verdict.end() || !failures->is_array()) return out;
  for (const auto& failure : *failures) {
    auto message = failure.is_object() ? failure.find("message") : failure.end();
    if (failure.is_object() && message != failure.end() && message->is_string()) {
      out += "  - " + message->get<std::string>() + "\n";
    }
  }
  return out;
}

}  // namespace agent
