// The one-time network boot and the reset into it, with an intent before each call and a look
// at the override before acting again (resume_checks.hpp).
#include "host_control.hpp"
#include "resume_checks.hpp"

namespace workflows::lifecycle {
namespace {

using Phase = BootIntent::Phase;

// Writes the intent into the section and the run row; false: the lease is gone.
bool recordBootIntent(StepContext& ctx, nlohmann::json& section, Phase phase) {
  section["boot_intent"] = bootIntentJson(phase, ctx.now());
  return ctx.recordIntent();
}

std::optional<StepOutcome> resetInto(StepContext& ctx, nlohmann::json& section,
                                     redfish::Client& client, const redfish::Quirks& quirks,
                                     NetworkBoot& done) {
  if (!recordBootIntent(ctx, section, Phase::kReset)) {
    return leaseLost("resetting the host into the network boot");
  }
  auto reset = bootHost(client, systemPathOf(ctx), quirks);
  if (!reset) return bmcTrouble("resetting the host into the network boot", reset.error());
  done.reset_type = reset->resetType;
  section.erase("boot_intent");
  return std::nullopt;
}

}  // namespace

std::string NetworkBoot::summary() const {
  if (adopted) {
    return "found the host already booting the one-time " + target +
           " boot (asked before a take-over)";
  }
  return "one-time " + target + " boot and " + reset_type;
}

Duration postWindow(const Env& env) {
  return env.settings.timings.scaled(env.settings.timings.power_settle);
}

StepOutcome leaseLost(const std::string& doing) {
  return StepOutcome::retry("lease_lost", doing + ": this replica no longer holds the run");
}

std::optional<StepOutcome> bootIntoNetwork(const Env& env, StepContext& ctx,
                                           nlohmann::json& section, NetworkBoot& done) {
  auto client = env.bmc(ctx);
  if (!client) return bmcTrouble("connecting to the BMC", client.error());
  auto quirks = quirksOf(**client, ctx);
  if (!quirks) return bmcTrouble("reading the service root", quirks.error());
  const std::string system = systemPathOf(ctx);
  const auto boot = networkBootOverride(env);
  done.target = std::string(redfish::toString(boot.target));

  const BootIntent intent = bootIntentOf(section);
  BootResume action = BootResume::kBootNow;
  if (intent.phase != Phase::kNone) {
    auto state = redfish::readBootOverride(**client, system);
    if (!state) return bmcTrouble("reading the boot override", state.error());
    const auto post_window = postWindow(env);
    action = decideBootResume(intent, redfish::oneTimeBootPending(*state, boot.target), ctx.now(),
                              post_window);
    if (action == BootResume::kAwaitPost) {
      return StepOutcome::waitUntil(
          std::min(env.after(ctx.now(), env.settings.timings.poll), intent.at + post_window),
          "boot_override_consumed",
          "the host reset asked before this replica took the run may still be reaching POST");
    }
  }
  if (action == BootResume::kBooted) {
    done.adopted = true;
    section.erase("boot_intent");
    return std::nullopt;
  }
  if (action == BootResume::kBootNow) {
    if (!recordBootIntent(ctx, section, Phase::kOverride)) {
      return leaseLost("setting the one-time network boot");
    }
    if (auto set = redfish::setOneTimeBoot(**client, system, boot, *quirks); !set) {
      return bmcTrouble("setting the one-time network boot", set.error());
    }
  }
  return resetInto(ctx, section, **client, *quirks, done);
}

}  // namespace workflows::lifecycle
