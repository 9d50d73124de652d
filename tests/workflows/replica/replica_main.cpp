// A replica of the workflow engine for the SIGKILL test: runs a three-step test workflow whose
// steps wait a little (persisted timers) against a database until it is signalled or killed.
// Usage: workflow_replica <database-url> <owner> <lease-ms> [hang]
// hang: the first step never returns (a step stuck in a BMC call), so the runs this replica
// claims stay leased to it until it dies.
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "inventory/database.hpp"
#include "workflows/engine.hpp"

namespace {

using namespace std::chrono_literals;
using workflows::StepContext;
using workflows::StepOutcome;

// Waits once (a persisted timer), then goes on to `next` (or succeeds when it is empty).
workflows::StepDef waitingStep(const std::string& name, const std::string& next) {
  workflows::StepDef step;
  step.name = name;
  step.run = [name, next](StepContext& ctx) {
    const std::string key = name + "_waited";
    if (!ctx.data().contains(key)) {
      ctx.data()[key] = true;
      return StepOutcome::waitUntil(ctx.now() + 300ms, "timer");
    }
    return next.empty() ? StepOutcome::succeed() : StepOutcome::next(next);
  };
  return step;
}

}  // namespace

int main(int argc, char** argv) {
  const bool hang = argc == 5 && std::string(argv[4]) == "hang";
  if (argc != 4 && !hang) {
    std::fprintf(stderr, "usage: %s <database-url> <owner> <lease-ms> [hang]\n", argv[0]);
    return 2;
  }
  spdlog::set_level(spdlog::level::err);  // the test reads stderr only for "ready"
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);  // before any thread starts

  auto db = inventory::Database::connect(argv[1], 8);
  if (!db) {
    std::fprintf(stderr, "cannot connect: %s\n", db.error().message.c_str());
    return 1;
  }
  workflows::EngineOptions options;
  options.owner = argv[2];
  options.workers = 4;
  options.lease = workflows::Duration(std::stoll(argv[3]));
  options.poll_interval = 50ms;
  workflows::Engine engine(*db, workflows::systemClock(), options);
  workflows::WorkflowDef def;
  def.kind = "replica_demo";
  def.first_step = "one";
  def.steps = {waitingStep("one", "two"), waitingStep("two", "three"), waitingStep("three", "")};
  if (hang) {
    def.steps.front().run = [](StepContext&) -> StepOutcome {
      while (true) std::this_thread::sleep_for(1s);
    };
  }
  engine.registerWorkflow(def);
  engine.start();
  std::fprintf(stderr, "workflow replica %s ready\n", options.owner.c_str());

  int received = 0;
  sigwait(&stop_signals, &received);
  engine.stop();
  return 0;
}
