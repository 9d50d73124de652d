// Kill points in the host side effects of configure and imaging: a replica dies after the BMC
// answered and before the outcome is written (or right after writing its intent), and the step
// run again, as the replica taking the run over would, must not send the PATCH, the boot override
// or the reset a second time, nor skip one that was never sent. The simulated BMC's own request
// log is the judge. Real PostgreSQL (node, profile, task) and bmc-sim over HTTP.
#include <catch2/catch.hpp>

#include <algorithm>

#include "lifecycle/resume_checks.hpp"
#include "lifecycle_b_bench.hpp"

namespace {

using lifecycle_b::Bench;
using lifecycle_b::BenchOptions;
using nlohmann::json;
using workflows::StepOutcome;
namespace lc = workflows::lifecycle;
using Kind = StepOutcome::Kind;
using std::chrono::minutes;
using std::chrono::seconds;

BenchOptions biosOptions() {
  BenchOptions options;
  options.bios = {{"SriovSupport", "Disabled"}, {"TpmSupport", "Enable"}};  // TpmSupport is set
  return options;
}

std::size_t biosPatches(const Bench& bench) {
  return bench.requestCount("PATCH", "Bios");
}
std::size_t resets(const Bench& bench) {
  return bench.requestCount("POST", "ComputerSystem.Reset");
}
// PATCHes of the system itself: its Boot override (the BIOS has paths of its own).
std::size_t bootOverrides(const Bench& bench) {
  const auto requests = bench.requests();
  return static_cast<std::size_t>(
      std::count(requests.begin(), requests.end(), "PATCH /redfish/v1/Systems/DGX"));
}

// Runs configure while it waits, the clocks moved 30 s between runs, up to `calls` times.
StepOutcome configureUntilDone(Bench& bench, int calls = 20) {
  StepOutcome outcome = bench.run("configure", lc::configureStep);
  for (int i = 1; i < calls && outcome.kind == Kind::kWait; ++i) {
    bench.advance(seconds(30));
    outcome = bench.run("configure", lc::configureStep);
  }
  return outcome;
}

// configure's first run, undisturbed: the difference PATCHed, the reset not asked yet.
void patchBiosOnce(Bench& bench) {
  auto patched = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(patched, Kind::kWait);
  CHECK(patched.waiting_for == "host_reset");
  CHECK(biosPatches(bench) == 1);
  CHECK(resets(bench) == 0);
}

}  // namespace

TEST_CASE("Configure killed after its BIOS PATCH does not PATCH again on resume",
          "[lifecycle_b][configure][kill]") {
  Bench bench(biosOptions());
  CHECK(bench.runAndDie("configure", lc::configureStep) == 1);
  CHECK(biosPatches(bench) == 1);
  CHECK(bench.data()["bios"]["intent"] == json({{"SriovSupport", "Disabled"}}));
  CHECK_FALSE(bench.data()["bios"].contains("applied"));  // the answer died with the replica

  auto resumed = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(resumed, Kind::kWait);
  CHECK(resumed.waiting_for == "host_reset");
  CHECK(bench.data()["bios"]["applied"] == json({{"SriovSupport", "Disabled"}}));
  auto done = configureUntilDone(bench);
  CHECK_OUTCOME(done, Kind::kNext);
  CHECK(done.step == "firmware");
  CHECK(biosPatches(bench) == 1);
  CHECK(resets(bench) == 1);
  CHECK(bench.snapshot()["bios"]["applied"]["SriovSupport"] == "Disabled");
}

TEST_CASE("Configure killed between its BIOS intent and the PATCH sends the PATCH on resume",
          "[lifecycle_b][configure][kill]") {
  Bench bench(biosOptions());
  bench.runAndDieAtIntent("configure", lc::configureStep, 1);
  CHECK(biosPatches(bench) == 0);
  auto done = configureUntilDone(bench);
  CHECK_OUTCOME(done, Kind::kNext);
  CHECK(biosPatches(bench) == 1);
  CHECK(resets(bench) == 1);
}

TEST_CASE("Configure killed after its host reset does not reset again on resume",
          "[lifecycle_b][configure][kill]") {
  Bench bench(biosOptions());
  patchBiosOnce(bench);
  CHECK(bench.runAndDie("configure", lc::configureStep) == 1);
  CHECK(resets(bench) == 1);
  CHECK(bench.data()["bios"].contains("reset_intent_at"));
  CHECK_FALSE(bench.data()["bios"].contains("reset_at"));

  auto done = configureUntilDone(bench);
  CHECK_OUTCOME(done, Kind::kNext);
  CHECK(done.step == "firmware");
  CHECK(resets(bench) == 1);
  CHECK(biosPatches(bench) == 1);
}

TEST_CASE("Configure killed between its reset intent and the reset resets once, after POST time",
          "[lifecycle_b][configure][kill]") {
  Bench bench(biosOptions());
  patchBiosOnce(bench);
  bench.runAndDieAtIntent("configure", lc::configureStep, 1);
  CHECK(resets(bench) == 0);

  // The settings are still pending: the reset may still be on its way to POST. Wait, don't reset.
  auto early = bench.run("configure", lc::configureStep);
  CHECK_OUTCOME(early, Kind::kWait);
  CHECK(early.waiting_for == "bios_applied");
  CHECK(resets(bench) == 0);

  bench.advance(minutes(3));  // past the post window (power_settle, 120 s): it never happened
  auto done = configureUntilDone(bench);
  CHECK_OUTCOME(done, Kind::kNext);
  CHECK(resets(bench) == 1);
  CHECK(bench.snapshot()["bios"]["applied"]["SriovSupport"] == "Disabled");
}

TEST_CASE("Imaging killed after its reset neither sets the override nor resets again",
          "[lifecycle_b][imaging][kill]") {
  Bench bench;
  CHECK(bench.runAndDie("imaging", lc::imagingStep) == 2);  // override intent, reset intent
  CHECK(bootOverrides(bench) == 1);
  CHECK(resets(bench) == 1);
  CHECK(bench.data()["imaging"]["boot_intent"]["phase"] == "reset");

  auto resumed = bench.run("imaging", lc::imagingStep);
  CHECK_OUTCOME(resumed, Kind::kNext);
  CHECK(resumed.step == "burn_in");
  CHECK(bootOverrides(bench) == 1);
  CHECK(resets(bench) == 1);
  CHECK(bench.data()["imaging"]["boots"] == 1);
  CHECK_FALSE(bench.data()["imaging"].contains("boot_intent"));
}

TEST_CASE("Imaging killed before its reset resets once the override is found unconsumed",
          "[lifecycle_b][imaging][kill]") {
  Bench bench;
  bench.runAndDieAtIntent("imaging", lc::imagingStep, 2);  // override set, reset never sent
  CHECK(bootOverrides(bench) == 1);
  CHECK(resets(bench) == 0);

  auto early = bench.run("imaging", lc::imagingStep);
  CHECK_OUTCOME(early, Kind::kWait);
  CHECK(early.waiting_for == "boot_override_consumed");
  CHECK(resets(bench) == 0);

  bench.advance(minutes(3));
  auto resumed = bench.run("imaging", lc::imagingStep);
  CHECK_OUTCOME(resumed, Kind::kNext);
  CHECK(bootOverrides(bench) == 1);  // still set: not PATCHed again
  CHECK(resets(bench) == 1);
}

TEST_CASE("Imaging killed after its override, before its reset intent, does not set it again",
          "[lifecycle_b][imaging][kill]") {
  // The chaos harness (seed 3) found two boot overrides 0.3 s apart: the replica that sent the
  // PATCH died before writing its reset intent, and the next one, seeing only the override's
  // intent, sent it again. It must look at the BMC first.
  Bench bench;
  bench.runAndDieBeforeIntent("imaging", lc::imagingStep, 2);
  CHECK(bootOverrides(bench) == 1);
  CHECK(resets(bench) == 0);
  CHECK(bench.data()["imaging"]["boot_intent"]["phase"] == "override");

  auto resumed = bench.run("imaging", lc::imagingStep);
  CHECK_OUTCOME(resumed, Kind::kNext);
  CHECK(bootOverrides(bench) == 1);  // found set: not PATCHed again
  CHECK(resets(bench) == 1);
}

TEST_CASE("Imaging killed before its override sets it and resets once on resume",
          "[lifecycle_b][imaging][kill]") {
  Bench bench;
  bench.runAndDieAtIntent("imaging", lc::imagingStep, 1);
  CHECK(bootOverrides(bench) == 0);
  auto resumed = bench.run("imaging", lc::imagingStep);
  CHECK_OUTCOME(resumed, Kind::kNext);
  CHECK(bootOverrides(bench) == 1);
  CHECK(resets(bench) == 1);
}

TEST_CASE("Resume decisions for a network boot and BIOS settings", "[lifecycle_b][resume][unit]") {
  using lc::BiosPatchResume;
  using lc::BiosResetResume;
  using lc::BootIntent;
  using lc::BootResume;
  const workflows::TimePoint t0{std::chrono::hours(1000)};
  const auto window = std::chrono::duration_cast<workflows::Duration>(minutes(2));

  SECTION("network boot") {
    BootIntent none;
    CHECK(lc::decideBootResume(none, true, t0, window) == BootResume::kBootNow);
    BootIntent override_only{BootIntent::Phase::kOverride, t0};
    CHECK(lc::decideBootResume(override_only, false, t0, window) == BootResume::kBootNow);
    // The override landed before the replica that asked died: only the reset is left.
    CHECK(lc::decideBootResume(override_only, true, t0, window) == BootResume::kResetNow);
    BootIntent reset{BootIntent::Phase::kReset, t0};
    CHECK(lc::decideBootResume(reset, false, t0, window) == BootResume::kBooted);
    CHECK(lc::decideBootResume(reset, true, t0 + seconds(30), window) == BootResume::kAwaitPost);
    CHECK(lc::decideBootResume(reset, true, t0 + minutes(2), window) == BootResume::kResetNow);
    // The intent as the step writes it reads back the same.
    json section = {{"boot_intent", lc::bootIntentJson(BootIntent::Phase::kReset, t0)}};
    CHECK(lc::bootIntentOf(section).phase == BootIntent::Phase::kReset);
    CHECK(lc::bootIntentOf(section).at == t0);
    section["boot_intent"]["at"] = "yesterday";
    CHECK(lc::bootIntentOf(section).phase == BootIntent::Phase::kNone);
  }
  SECTION("BIOS PATCH") {
    const json intent = {{"A", "On"}};
    CHECK(lc::decideBiosPatchResume(intent, {{"A", "Off"}}, json::object()) ==
          BiosPatchResume::kPatch);
    CHECK(lc::decideBiosPatchResume(intent, {{"A", "Off"}}, {{"A", "On"}}) ==
          BiosPatchResume::kPending);
    CHECK(lc::decideBiosPatchResume(intent, {{"A", "On"}}, {{"A", "On"}}) ==
          BiosPatchResume::kApplied);
  }
  SECTION("BIOS reset") {
    const json applied = {{"A", "On"}};
    // HPE-like: the settings object mirrors every attribute, current values decide.
    CHECK(lc::decideBiosResetResume(applied, {{"A", "On"}}, {{"A", "On"}}, t0, t0, window) ==
          BiosResetResume::kResetTook);
    CHECK(lc::decideBiosResetResume(applied, {{"A", "Off"}}, json::object(), t0, t0, window) ==
          BiosResetResume::kResetTook);
    CHECK(lc::decideBiosResetResume(applied, {{"A", "Off"}}, {{"A", "On"}}, t0, t0, window) ==
          BiosResetResume::kAwaitPost);
    CHECK(lc::decideBiosResetResume(applied, {{"A", "Off"}}, {{"A", "On"}}, t0, t0 + minutes(3),
                                    window) == BiosResetResume::kResetNow);
  }
}
