// What a resumed step decides from the intent it left and what the BMC shows now, for the host
// side effects that must not happen twice: the one-time network boot with its reset (imaging,
// the decommission's wipe boot) and the BIOS settings' PATCH and reset (configure). Pure
// functions: the steps read the world and act; the decision is tested as a unit.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "workflows/clock.hpp"

namespace workflows::lifecycle {

// A network boot's intent, kept in the step's section of the run context as
//   "boot_intent": {"phase": "override" | "reset", "at": <iso time>}
// "override": about to set the one-time boot (no reset asked yet). "reset": the override is set
// and the host reset is about to be asked (or was, by a replica that died before committing).
struct BootIntent {
  enum class Phase { kNone, kOverride, kReset };
  Phase phase = Phase::kNone;
  TimePoint at{};
};
BootIntent bootIntentOf(const nlohmann::json& section);
nlohmann::json bootIntentJson(BootIntent::Phase phase, TimePoint at);

enum class BootResume {
  kBootNow,    // set the override and reset (nothing asked yet, or an override that did not land)
  kBooted,     // the override was taken by a boot: the reset happened, do not reset again
  kAwaitPost,  // the override is still set: the host may be shutting down or in POST; look again
  kResetNow,   // the override is set but no reset reached the BMC (the override's intent, or
               // still set long after the reset was asked): reset now, without a second PATCH
};
// `override_pending`: the one-time override to our target is set now (read for kOverride and
// kReset: a PATCH may have landed though its replica died before writing the next intent).
// `post_window`: how long a reset takes to reach POST, where BIOS consumes the override.
BootResume decideBootResume(const BootIntent& intent, bool override_pending, TimePoint now,
                            Duration post_window);

// The BIOS settings' PATCH and its reset. The configure step's section "bios" holds
//   {"intent": {...attributes...}, "intent_at"}   before the PATCH
//   {"applied": {...}, "patched_at"}              the PATCH answered
//   {"reset_intent_at"}                           before the host reset
//   {"reset_at", "reset_type"}                    the reset answered
enum class BiosPatchResume {
  kPatch,    // the PATCH did not reach the BMC: send it
  kPending,  // the BMC holds the values as pending settings: adopt, reset next
  kApplied,  // the values are current already (the reset happened too): verify
};
// `current`: the Bios's Attributes; `pending`: its settings object's Attributes.
BiosPatchResume decideBiosPatchResume(const nlohmann::json& intent, const nlohmann::json& current,
                                      const nlohmann::json& pending);

enum class BiosResetResume {
  kResetTook,  // the values are current or no longer pending: the host booted; verify
  kAwaitPost,  // still pending within the post window: the host may not have reached POST
  kResetNow,   // still pending long after: the reset never reached the BMC; reset now
};
BiosResetResume decideBiosResetResume(const nlohmann::json& applied, const nlohmann::json& current,
                                      const nlohmann::json& pending, TimePoint reset_intent_at,
                                      TimePoint now, Duration post_window);

}  // namespace workflows::lifecycle
