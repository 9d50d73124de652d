// What the scheduler's webhook receives for a ready node, per format.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "inventory/types.hpp"

namespace workflows::lifecycle {

// "generic": the node with its GPUs; "slurm": {"nodes": [hostname], "state": "resume",
// "reason": ...}; "kubernetes": a Node object with model/rack/GPU labels. Another format is
// InvalidArgument "invalid_handoff_format".
common::Result<nlohmann::json> handoffPayload(const std::string& format,
                                              const inventory::NodeDetail& detail);

// The host name schedulers know the node by: the chassis serial, lower-cased, with characters
// outside [a-z0-9-] as '-' (a DNS label).
std::string nodeHostname(const inventory::Node& node);

}  // namespace workflows::lifecycle
