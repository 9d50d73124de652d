#include "agent/local_task.hpp"

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/agent_main.hpp"
#include "agent/runner.hpp"
#include "agent/wipe_runner.hpp"

namespace agent {
namespace {

common::Result<Task> parseLocalTask(std::string_view text) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return common::fail(common::invalidArgument("invalid_task", "the task is not JSON", ""));
  }
  PROV_ASSIGN(Task task, parseTask(json));
  if (task.kind == TaskKind::kNone) {
    return common::fail(
        common::invalidArgument("invalid_task", "a local task must be burn_in or wipe", "kind"));
  }
  return task;
}

TaskResult runParsed(const Task& task, GpuBackend& backend, const std::vector<GpuFacts>& gpus,
                     std::ostream& log) {
  if (task.kind == TaskKind::kWipe) {
    log << "provisioner-agent: local wipe of " << gpus.size() << " GPU(s)\n";
    TaskResult result{task.id, {}, {}, "", std::nullopt};
    result.wipe = runWipe(task.wipe, backend, gpus, std::string(kAgentVersion));
    return result;
  }
  auto on_progress = [&log](const Progress& progress) {
    log << "provisioner-agent: " << progress.percent << "% " << progress.message << "\n";
    return true;
  };
  log << "provisioner-agent: local burn-in, " << task.plan.tests.size() << " test(s) on "
      << gpus.size() << " GPU(s)\n";
  return runBurnIn(task.id, task.plan, backend, gpus, on_progress);
}

}  // namespace

common::Result<TaskResult> runLocalTask(std::string_view task_json, GpuBackend& backend,
                                        std::ostream& log) {
  PROV_ASSIGN(Task task, parseLocalTask(task_json));
  auto gpus = backend.discover();
  if (!gpus) {
    return TaskResult{
        task.id, {}, {}, "GPU discovery failed: " + gpus.error().message, std::nullopt};
  }
  return runParsed(task, backend, *gpus, log);
}

}  // namespace agent
