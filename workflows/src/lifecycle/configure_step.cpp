// configure: the profile's BIOS settings, validated against the BIOS attribute registry, only the
// difference PATCHed (pending until the next boot), the host reset, the values verified after.
//
//   data "bios": {"intent": {...}, "intent_at"}      about to PATCH (written to the run first)
//                {"applied": {...}, "patched_at"}   PATCH done, persisted before the reset
//                + {"reset_intent_at"}              about to reset (written to the run first)
//                + {"reset_at", "reset_type"}       reset done; now verifying until the timeout
// A resumed step that finds an intent reads the BIOS and its pending settings before acting again
// (resume_checks.hpp): a PATCH or a reset is asked of the BMC once, whichever replica dies when.
#include <algorithm>

#include "host_control.hpp"
#include "redfish/bios.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"
#include "resume_checks.hpp"

namespace workflows::lifecycle {
namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::vector<std::string> keysOf(const json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

StepOutcome configured(const Env& env, StepContext& ctx, const std::string& why) {
  enterState(env, ctx, "configured", why);
  return StepOutcome::next("firmware", why);
}

// An attribute the registry refuses: named, with what the registry allows.
StepOutcome invalidSetting(const redfish::BiosRegistry& registry, const common::Error& error) {
  json allowed = json::array();
  if (auto def = registry.attributes.find(error.field); def != registry.attributes.end()) {
    for (const auto& value : def->second.allowedValues) allowed.push_back(value);
  }
  std::string message =
      "BIOS setting " + error.field + " of the profile is invalid: " + error.message;
  if (!allowed.empty() && error.code != redfish::codes::kNotAllowed) {
    message += "; allowed: " + joined(allowed.get<std::vector<std::string>>());
  }
  return StepOutcome::fail("bios_setting_invalid", message,
                           {{"attribute", error.field},
                            {"code", error.code},
                            {"allowed", allowed},
                            {"registry", registry.uri}});
}

// A 4xx to the PATCH is the BMC's word on the values; anything else may pass.
bool refusedByBmc(const common::Error& error) {
  return error.code == redfish::codes::kHttpError &&
         error.kind == common::ErrorKind::kInvalidArgument;
}

StepOutcome applyDifference(const Env& env, StepContext& ctx, redfish::Client& client,
                            const json& desired) {
  const std::string system = systemPathOf(ctx);
  auto quirks = quirksOf(client, ctx);
  if (!quirks) return bmcTrouble("reading the service root", quirks.error());
  auto bios = redfish::readBios(client, system);
  if (!bios) return bmcTrouble("reading the BIOS", bios.error());
  auto registry = redfish::readBiosRegistry(client, *bios);
  const bool noRegistry = !registry && (registry.error().code == redfish::codes::kNotSupported ||
                                        registry.error().kind == common::ErrorKind::kNotFound);
  if (!registry && !noRegistry) {
    return bmcTrouble("reading the BIOS attribute registry", registry.error());
  }
  // Without a registry the BMC is the judge (its refusal below names the attribute).
  if (registry) {
    if (auto valid = redfish::validateBiosAttributes(*registry, desired); !valid) {
      return invalidSetting(*registry, valid.error());
    }
  }
  json difference = redfish::biosDiff(bios->attributes, desired);
  if (difference.empty()) return configured(env, ctx, "BIOS settings already as the profile asks");
  ctx.data()["bios"] = {{"intent", std::move(difference)}, {"intent_at", isoTime(ctx.current())}};
  if (!ctx.recordIntent()) return leaseLost("PATCHing the BIOS settings");
  auto applied = redfish::applyBiosSettings(client, system, desired, *quirks);
  if (!applied && refusedByBmc(applied.error())) {
    const auto& e = applied.error();
    return StepOutcome::fail(
        "bios_setting_refused",
        "the BMC refused the BIOS settings: " + (e.detail.empty() ? e.message : e.detail),
        {{"bmc_message", e.message}, {"messages", e.detail}});
  }
  if (!applied) return bmcTrouble("PATCHing the BIOS settings", applied.error());
  json record = {{"applied", applied->patched}, {"patched_at", isoTime(ctx.current())}};
  if (applied->job) record["job"] = applied->job->pollUri();
  ctx.data()["bios"] = record;
  const auto names = joined(keysOf(applied->patched));
  ctx.event("bios_patched", "BIOS settings " + names + " pending until the next boot",
            {{"applied", applied->patched}});
  // Persisted before the reset: a resumed run resets and verifies instead of PATCHing blind.
  return StepOutcome::waitUntil(ctx.now(), "host_reset", "BIOS settings " + names + " pending");
}

StepOutcome resetForBios(const Env& env, StepContext& ctx, redfish::Client& client) {
  auto quirks = quirksOf(client, ctx);
  if (!quirks) return bmcTrouble("reading the service root", quirks.error());
  auto& bios = ctx.data()["bios"];
  bios["reset_intent_at"] = isoTime(ctx.current());
  if (!ctx.recordIntent()) return leaseLost("resetting the host to apply BIOS settings");
  auto reset = bootHost(client, systemPathOf(ctx), *quirks);
  if (!reset) return bmcTrouble("resetting the host to apply BIOS settings", reset.error());
  bios["reset_at"] = isoTime(ctx.current());
  bios["reset_type"] = reset->resetType;
  const auto& t = env.settings.timings;
  return StepOutcome::waitUntil(env.after(ctx.now(), std::min(t.power_settle, t.poll)),
                                "bios_applied",
                                "host reset (" + reset->resetType + ") to apply BIOS settings");
}

StepOutcome verifyApplied(const Env& env, StepContext& ctx, redfish::Client& client) {
  json bios = ctx.data()["bios"];
  const json applied = bios.contains("applied") ? bios["applied"] : json::object();
  const auto deadline = env.after(timeAt(bios, "reset_at").value_or(ctx.now()),
                                  env.settings.timings.bios_apply_timeout);
  auto missing = redfish::biosNotApplied(client, systemPathOf(ctx), applied);
  if (missing && missing->empty()) {
    ctx.data()["bios"]["verified_at"] = isoTime(ctx.current());
    return configured(env, ctx, "BIOS settings " + joined(keysOf(applied)) + " applied");
  }
  if (ctx.now() < deadline) {
    // A host still booting may not answer yet: look again until the deadline.
    return StepOutcome::waitUntil(
        std::min(env.after(ctx.now(), env.settings.timings.poll), deadline), "bios_applied",
        "BIOS settings not applied yet");
  }
  ctx.data().erase("bios");  // an operator's retry starts over from the PATCH
  if (!missing) {
    return StepOutcome::fail(
        "bios_not_applied",
        "could not confirm the BIOS settings after the reset: " + missing.error().message,
        {{"expected", applied}});
  }
  return StepOutcome::fail(
      "bios_not_applied",
      "BIOS settings " + joined(*missing) + " still not applied after the reset",
      {{"attributes", *missing}, {"expected", applied}});
}

// The BIOS as it stands: current values and pending settings.
struct BiosNow {
  json current, pending;
};
common::Result<BiosNow> readBiosNow(StepContext& ctx, redfish::Client& client) {
  PROV_ASSIGN(auto bios, redfish::readBios(client, systemPathOf(ctx)));
  PROV_ASSIGN(auto pending, redfish::readPendingBios(client, bios));
  return BiosNow{bios.attributes, pending};
}

// A PATCH intent without its answer: a replica died between asking and committing.
StepOutcome resumePatch(const Env& env, StepContext& ctx, redfish::Client& client,
                        const json& desired) {
  auto now = readBiosNow(ctx, client);
  if (!now) return bmcTrouble("reading the BIOS after a take-over", now.error());
  json& bios = ctx.data()["bios"];
  const json intent = bios["intent"];
  switch (decideBiosPatchResume(intent, now->current, now->pending)) {
    case BiosPatchResume::kPatch:
      return applyDifference(env, ctx, client, desired);
    case BiosPatchResume::kApplied:
      // Already current: the PATCH and a boot both happened; verify as after a reset.
      bios = {{"applied", intent},
              {"patched_at", bios["intent_at"]},
              {"reset_at", isoTime(ctx.current())},
              {"reset_type", "adopted"}};
      return verifyApplied(env, ctx, client);
    case BiosPatchResume::kPending:
      break;
  }
  bios = {{"applied", intent}, {"patched_at", bios["intent_at"]}};
  const auto names = joined(keysOf(intent));
  ctx.event(
      "bios_patched",
      "BIOS settings " + names + " found pending (PATCHed before a take-over), not sent again",
      {{"applied", intent}, {"adopted", true}});
  return StepOutcome::waitUntil(ctx.now(), "host_reset", "BIOS settings " + names + " pending");
}

// A reset intent without its answer: did the host boot (the pending values taken)?
StepOutcome resumeReset(const Env& env, StepContext& ctx, redfish::Client& client) {
  auto now = readBiosNow(ctx, client);
  if (!now) return bmcTrouble("reading the BIOS after a take-over", now.error());
  json& bios = ctx.data()["bios"];
  const auto asked = timeAt(bios, "reset_intent_at").value_or(ctx.now());
  const auto window = postWindow(env);
  switch (decideBiosResetResume(bios["applied"], now->current, now->pending, asked, ctx.now(),
                                window)) {
    case BiosResetResume::kResetTook:
      bios["reset_at"] = bios["reset_intent_at"];
      bios["reset_type"] = "adopted";
      return verifyApplied(env, ctx, client);
    case BiosResetResume::kAwaitPost:
      return StepOutcome::waitUntil(
          std::min(env.after(ctx.now(), env.settings.timings.poll), asked + window), "bios_applied",
          "the reset asked before a take-over may still be reaching POST");
    case BiosResetResume::kResetNow:
      break;
  }
  return resetForBios(env, ctx, client);
}
}  // namespace

StepOutcome configureStep(const Env& env, StepContext& ctx) {
  auto profile = profileOf(env, ctx);
  if (!profile) return StepOutcome::retry("inventory_error", profile.error().message);
  json desired = json::object();
  if (*profile) desired = json::parse((*profile)->bios_settings_json, nullptr, false);
  if (!desired.is_object() || desired.empty()) {
    return configured(env, ctx, "the profile asks for no BIOS settings");
  }
  if (systemPathOf(ctx).empty()) {
    return StepOutcome::fail("inspect_incomplete", "no system path recorded by inspect");
  }
  auto client = env.bmc(ctx);
  if (!client) return bmcTrouble("connecting to the BMC", client.error());
  const json* bios = redfish::member(ctx.data(), "bios");
  if (bios != nullptr && redfish::stringAt(*bios, "reset_at")) {
    return verifyApplied(env, ctx, **client);
  }
  if (bios != nullptr && redfish::stringAt(*bios, "reset_intent_at")) {
    return resumeReset(env, ctx, **client);
  }
  if (bios != nullptr && redfish::member(*bios, "applied")) return resetForBios(env, ctx, **client);
  if (bios != nullptr && redfish::member(*bios, "intent")) {
    return resumePatch(env, ctx, **client, desired);
  }
  return applyDifference(env, ctx, **client, desired);
}

}  // namespace workflows::lifecycle
