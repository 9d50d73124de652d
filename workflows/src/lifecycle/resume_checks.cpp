#include "resume_checks.hpp"

#include "host_control.hpp"
#include "redfish/bios.hpp"
#include "redfish/json.hpp"

namespace workflows::lifecycle {

using nlohmann::json;

BootIntent bootIntentOf(const json& section) {
  BootIntent intent;
  const json* recorded = redfish::member(section, "boot_intent");
  if (recorded == nullptr) return intent;
  const auto phase = redfish::stringAt(*recorded, "phase").value_or("");
  const auto at = timeAt(*recorded, "at");
  if (!at) return intent;  // unreadable: as if nothing had been asked
  intent.at = *at;
  if (phase == "override") intent.phase = BootIntent::Phase::kOverride;
  if (phase == "reset") intent.phase = BootIntent::Phase::kReset;
  return intent;
}

json bootIntentJson(BootIntent::Phase phase, TimePoint at) {
  return {{"phase", phase == BootIntent::Phase::kReset ? "reset" : "override"},
          {"at", isoTime(at)}};
}

BootResume decideBootResume(const BootIntent& intent, bool override_pending, TimePoint now,
                            Duration post_window) {
  if (intent.phase == BootIntent::Phase::kNone) return BootResume::kBootNow;
  if (intent.phase == BootIntent::Phase::kOverride) {
    return override_pending ? BootResume::kResetNow : BootResume::kBootNow;
  }
  if (!override_pending) return BootResume::kBooted;
  return now < intent.at + post_window ? BootResume::kAwaitPost : BootResume::kResetNow;
}

namespace {

// Every intended attribute has its intended value in `values`.
bool holds(const json& values, const json& intended) {
  return redfish::biosDiff(values, intended).empty();
}

}  // namespace

BiosPatchResume decideBiosPatchResume(const json& intent, const json& current,
                                      const json& pending) {
  if (holds(current, intent)) return BiosPatchResume::kApplied;
  if (holds(pending, intent)) return BiosPatchResume::kPending;
  return BiosPatchResume::kPatch;
}

BiosResetResume decideBiosResetResume(const json& applied, const json& current, const json& pending,
                                      TimePoint reset_intent_at, TimePoint now,
                                      Duration post_window) {
  // Some BMCs (HPE) show every attribute in the settings object, so "pending" alone does not
  // prove the boot has not happened: current values win.
  if (holds(current, applied) || !holds(pending, applied)) return BiosResetResume::kResetTook;
  return now < reset_intent_at + post_window ? BiosResetResume::kAwaitPost
                                             : BiosResetResume::kResetNow;
}

}  // namespace workflows::lifecycle
