// What the rule evaluators share (rules.cpp, learned_normal.cpp): a flag draft built from a
// rule and the number format of reasons.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "inventory/health/rules.hpp"

namespace inventory::health::detail {

// `decimals` digits after the point ("3.1").
std::string fmt(double v, int decimals = 1);

// A draft of `rule` for `serial`, with the rule's severity, action and source in the evidence.
FlagDraft draftOf(const Rule& rule, const std::string& serial, Seconds at, std::string reason,
                  nlohmann::json evidence);

}  // namespace inventory::health::detail
