// A resident task carried out by the monitor (docs/health.md, "Actions"): today a GPU reset. Its
// journal, `<state_dir>/tasks/<id>`, says "started" before the reset and the outcome after, so a
// monitor killed anywhere neither resets twice for a reported outcome nor forgets a reset.
#include <system_error>

#include "agent/monitor.hpp"
#include "monitor/durable_file.hpp"

namespace agent {
namespace {

constexpr const char* kStarted = "started";

std::filesystem::path journalOf(const std::filesystem::path& state_dir, std::int64_t id) {
  return state_dir / "tasks" / std::to_string(id);
}

// The journal's outcome, when it has one: "succeeded" or "failed", the time, the message, one
// per line.
std::optional<ResidentTaskOutcome> journaledOutcome(const std::string& text) {
  const auto first = text.find('\n');
  if (first == std::string::npos) return std::nullopt;
  const std::string state = text.substr(0, first);
  const auto second = text.find('\n', first + 1);
  if ((state != "succeeded" && state != "failed") || second == std::string::npos) {
    return std::nullopt;
  }
  return ResidentTaskOutcome{state == "succeeded", text.substr(second + 1),
                             text.substr(first + 1, second - first - 1)};
}

std::string journalText(const ResidentTaskOutcome& outcome) {
  return std::string(outcome.succeeded ? "succeeded" : "failed") + "\n" + outcome.done_at + "\n" +
         outcome.message;
}

ResidentTaskOutcome failed(std::string message) {
  return {false, std::move(message), ""};
}

// The reset itself, then the GPU read again: the reset is what makes a pending remap take effect.
ResidentTaskOutcome resetAndCheck(GpuBackend& backend, const GpuFacts& gpu, bool resumed) {
  if (resumed) {
    // Killed after "started": did the reset happen? A remap no longer pending says it did.
    auto before = backend.sampleHealth(gpu.index);
    if (before && !before->remap_pending) {
      return {true, "the reset before the agent restarted took effect: no row remap pending", ""};
    }
  }
  if (auto reset = backend.resetGpu(gpu.index); !reset) return failed(reset.error().message);
  auto after = backend.sampleHealth(gpu.index);
  if (!after) return failed("reset, but the GPU does not answer: " + after.error().message);
  if (after->remap_pending) return failed("reset, but a row remap is still pending");
  return {true, "GPU reset; no row remap pending", ""};
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
  ResidentTaskOutcome outcome;
  const GpuFacts* gpu = nullptr;
  for (const auto& g : gpus) {
    if (g.serial == order.gpu_serial) gpu = &g;
  }
  if (order.kind != "gpu_reset") {
    outcome = failed("this agent does not know resident tasks of kind " + order.kind);
  } else if (gpu == nullptr) {
    outcome = failed("no GPU " + order.gpu_serial + " on this node");
  } else {
    std::error_code ec;
    std::filesystem::create_directories(journal.parent_path(), ec);
    if (auto started = monitor::writeFileDurably(journal, kStarted, 0600); !started) {
      return failed("cannot journal the task: " + started.error().message);
    }
    outcome = resetAndCheck(backend, *gpu, resumed);
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
