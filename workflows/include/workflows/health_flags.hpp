// The health flag evaluation (docs/health.md, "Flags"): the rules of inventory::health run over
// the GPUs with a reading since the last evaluation (their 30 days of daily roll-ups, counter
// state, XID bursts, remaps, past flags, and their racks' peer groups), and the drafts raised as
// flags (one open per GPU and rule). The fleet's gpu_health_upkeep run calls it after each
// maintenance pass.
#pragma once

#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/gpu_flags.hpp"
#include "inventory/health/rules.hpp"

namespace workflows {

struct FlagEvaluation {
  int gpus = 0;    // GPUs evaluated (a reading since `since`)
  int drafts = 0;  // drafts the rules produced
  inventory::FlagRaiseResult raised;
};

common::Result<FlagEvaluation> evaluateHealthFlags(inventory::Database& db,
                                                   const inventory::health::Policy& policy,
                                                   inventory::health::Seconds since,
                                                   inventory::health::Seconds now);

}  // namespace workflows
