// A health flag as the rules raise it (pure): which GPU, which rule, why, on what evidence, and
// the action an operator (or the service) takes. The policy engine (rules/) produces these; the
// flag store (inventory/gpu_flags.hpp) keeps them, one open flag per GPU and rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/health/time.hpp"

namespace inventory::health {

// What to do about a flagged GPU, mildest first. NVIDIA's documented actions per signal map
// onto these (docs/health.md, "Rules and their sources").
enum class FlagAction {
  kWatch,         // nothing yet: shown on the dashboard, counted towards repeat offenders
  kResetAtIdle,   // reset the GPU at the next idle point (row remap pending)
  kRerunBurnIn,   // drain and run the burn-in again before the node goes back
  kDrain,         // drain the node through the scheduler hook now
  kRmaCandidate,  // drain, and open an RMA candidate for the GPU
};

enum class FlagSeverity { kInfo = 0, kWarning = 1, kCritical = 2 };

// Stable names used in JSON and the database ("reset_at_idle", "rma_candidate", ...).
std::string_view toString(FlagAction a);
std::optional<FlagAction> flagActionNamed(std::string_view name);
std::string_view toString(FlagSeverity s);
std::optional<FlagSeverity> flagSeverityNamed(std::string_view name);

struct FlagDraft {
  std::string serial;  // the GPU
  std::string rule;    // the rule's id, e.g. "nvidia.remap_failure", "trend.ecc_cusum"
  FlagSeverity severity = FlagSeverity::kWarning;
  FlagAction action = FlagAction::kWatch;
  std::string reason;  // one line an operator reads ("correctable ECC rising: CUSUM 9.1 > 5")
  std::string evidence_json;  // a JSON object with the values that triggered it
  Seconds raised_at{};        // when the evidence was seen (the reading's or the day's time)
  // The node the evidence was seen in (the out-of-band sweep knows it); 0: the node of the GPU's
  // last reading (its counter state).
  std::int64_t node_id = 0;
};

}  // namespace inventory::health
