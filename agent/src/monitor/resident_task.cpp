// A resident task carried out by the monitor (docs/health.md, "Actions"): a GPU reset, or a
// rerun_burn_in flag's short burn-in on the drained node. Its journal, `<state_dir>/tasks/<id>`,
// says "started" before the work and holds the outcome after, so a monitor killed anywhere
// neither redoes a task whose outcome it has nor forgets one it began.
#include <system_error>

#include "agent/agent_main.hpp"
#include "agent/monitor.hpp"
#include "agent/runner.hpp"
#include "monitor/durable_file.hpp"

namespace agent {
namespace {

constexpr const char* kStarted = "started";

std::filesystem::path journalOf(const std::filesystem::path& state_dir, std::int64_t id) {
  return state_dir / "tasks" / std::to_string(id);
}

// The journal's outcome, when it has one: {"succeeded", "message", "done_at", "details"}.
std::optional<ResidentTaskOutcome> journaledOutcome(const std::string& text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("succeeded") || !doc["succeeded"].is_boolean()) {
    return std::nullopt;
  }
  ResidentTaskOutcome outcome{doc["succeeded"].get<bool>(), doc.value("message", ""),
                              doc.value("done_at", ""), nlohmann::json::object()};
  if (doc.contains("details") && doc["details"].is_object()) outcome.details = doc["details"];
  return outcome;
}

std::string journalText(const ResidentTaskOutcome& outcome) {
  return nlohmann::json{{"succeeded", outcome.succeeded},
                        {"message", outcome.message},
                        {"done_at", outcome.done_at},
                        {"details", outcome.details}}
      .dump();
}

ResidentTaskOutcome failed(std::string message) {
  return {false, std::move(message), "", nlohmann::json::object()};
}

// The reset itself, then the GPU read again: the reset is what makes a pending remap take effect.
ResidentTaskOutcome resetAndCheck(GpuBackend& backend, const GpuFacts& gpu, bool resumed) {
  if (resumed) {
    // Killed after "started": did the reset happen? A remap no longer pending says it did.
    auto before = backend.sampleHealth(gpu.index);
    if (before && !before->remap_pending) {
      return {true, "the reset before the agent restarted took effect: no row remap pending", "",
              nlohmann::json::object()};
    }
  }
  if (auto reset = backend.resetGpu(gpu.index); !reset) return failed(reset.error().message);
  auto after = backend.sampleHealth(gpu.index);
  if (!after) return failed("reset, but the GPU does not answer: " + after.error().message);
  if (after->remap_pending) return failed("reset, but a row remap is still pending");
  return {true, "GPU reset; no row remap pending", "", nlohmann::json::object()};
}

// The plan on every GPU of the node (the service judges the result; "succeeded" here says only
// that it ran). Killed midway, it is run again from the start: a burn-in changes nothing.
ResidentTaskOutcome burnIn(const ResidentTaskOrder& order, const std::vector<GpuFacts>& gpus,
                           GpuBackend& backend) {
  auto plan = parseBurnInPlan(order.plan);
  if (!plan) return failed("the burn-in plan is not one this agent runs: " + plan.error().message);
  TaskResult result =
      runBurnIn(order.id, *plan, backend, gpus, [](const Progress&) { return true; });
  if (!result.error.empty()) return failed("the burn-in could not run: " + result.error);
  Facts facts;
  facts.agent_version = std::string(kAgentVersion);
  facts.backend = backend.name();
  facts.gpus = gpus;
  ResidentTaskOutcome outcome{true,
                              "burn-in ran: " + std::to_string(result.measurements.size()) +
                                  " measurements on " + std::to_string(gpus.size()) + " GPU(s)",
                              "", nlohmann::json::object()};
  outcome.details = {{"result", toJson(result)}, {"facts", toJson(facts)}};
  return outcome;
}

}  // namespace

ResidentTaskOutcome carryOutResidentTask(const std::filesystem::path& state_dir,
                                         const ResidentTaskOrder& order,
                                         const std::vector<GpuFacts>& gpus, GpuBackend& backend,
                                         std::chrono::system_clock::time_point now) {
  const auto journal = journalOf(state_dir, order.id);
  bool resumed = false;
  if (auto text = monitor::readWholeFile(journal)) {
    if (auto outcome = journaledOutcome(*text)) return *outcome;  // reported again, not redone
    resumed = *text == kStarted;
  }
  const bool known = order.kind == "gpu_reset" || order.kind == "burn_in";
  ResidentTaskOutcome outcome;
  const GpuFacts* gpu = nullptr;
  for (const auto& g : gpus) {
    if (g.serial == order.gpu_serial) gpu = &g;
  }
  if (!known) {
    outcome = failed("this agent does not know resident tasks of kind " + order.kind);
  } else if (gpu == nullptr) {
    outcome = failed("no GPU " + order.gpu_serial + " on this node");
  } else {
    std::error_code ec;
    std::filesystem::create_directories(journal.parent_path(), ec);
    if (auto started = monitor::writeFileDurably(journal, kStarted, 0600); !started) {
      return failed("cannot journal the task: " + started.error().message);
    }
    outcome = order.kind == "burn_in" ? burnIn(order, gpus, backend)
                                      : resetAndCheck(backend, *gpu, resumed);
  }
  outcome.done_at = formatUtcSeconds(now);
  (void)monitor::writeFileDurably(journal, journalText(outcome), 0600);  // lost: redone, checked
  return outcome;
}

void forgetResidentTask(const std::filesystem::path& state_dir, std::int64_t id) {
  std::error_code ec;
  std::filesystem::remove(journalOf(state_dir, id), ec);
}

}  // namespace agent
