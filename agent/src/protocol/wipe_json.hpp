// Wipe plan and report parsing at a path inside a larger message (a task's "wipe", a result's
// "wipe"), so errors name the full field and carry the enclosing message's code.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agent/wipe.hpp"
#include "common/result.hpp"

namespace agent::wipe_json {

common::Result<WipePlan> parsePlanAt(const nlohmann::json& object, std::string path,
                                     std::string code);
common::Result<WipeReport> parseReportAt(const nlohmann::json& object, std::string path,
                                         std::string code);

}  // namespace agent::wipe_json
