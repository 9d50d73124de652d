// What the scheduler is sent to drain a node before its update and resume it after (pure).
//   generic:    {"action": "drain"|"resume", "reason", "node": {"id", "hostname", "serial",
//                "site", "rack", "model"}}
//   slurm:      {"nodes": [hostname], "state": "drain"|"resume", "reason"}   (scontrol update)
//   kubernetes: {"apiVersion": "v1", "kind": "Node", "metadata": {"name"},
//                "spec": {"unschedulable": true|false}}                    (cordon / uncordon)
// The scheduler answers 2xx; a body {"idle": false} means "drained but jobs still run": the
// workflow asks again until {"idle": true} (or no "idle" at all) or the drain times out.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "common/result.hpp"
#include "inventory/types.hpp"

namespace workflows::rollout {

enum class DrainAction { kDrain, kResume };

common::Result<nlohmann::json> drainPayload(const std::string& format, DrainAction action,
                                            const inventory::Node& node,
                                            const std::string& reason);

// The scheduler's answer: idle unless it says {"idle": false}.
bool schedulerSaysIdle(const std::string& body);

}  // namespace workflows::rollout
