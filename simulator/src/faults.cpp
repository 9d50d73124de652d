// The JSON form of fault injection (fleet files and the control API), as documented in faults.hpp.
#include "simulator/faults.hpp"

#include <functional>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sim {
namespace {

using Json = nlohmann::json;
constexpr int kMaxSimulatedGpus = 64;  // the agent's limit on a simulated host's GPUs
using Setter = std::function<common::Result<void>(Faults&, const Json&, const std::string&)>;

common::Error badMember(const std::string& name, std::string_view expected) {
  return common::invalidArgument(
      "invalid_fault", "fault member '" + name + "' must be " + std::string(expected), name);
}

Setter nonNegative(double LatencyModel::*field) {
  return [field](Faults& f, const Json& v, const std::string& name) -> common::Result<void> {
    if (!v.is_number() || v.get<double>() < 0) return badMember(name, "a number >= 0");
    f.latency.*field = v.get<double>();
    return common::success();
  };
}

Setter positive(double LatencyModel::*field) {
  return [field](Faults& f, const Json& v, const std::string& name) -> common::Result<void> {
    if (!v.is_number() || v.get<double>() <= 0) return badMember(name, "a number > 0");
    f.latency.*field = v.get<double>();
    return common::success();
  };
}

Setter rate(double TransportFaults::*field) {
  return [field](Faults& f, const Json& v, const std::string& name) -> common::Result<void> {
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1) {
      return badMember(name, "a number in [0, 1]");
    }
    f.transport.*field = v.get<double>();
    return common::success();
  };
}

Setter flag(bool BehaviourFaults::*field) {
  return [field](Faults& f, const Json& v, const std::string& name) -> common::Result<void> {
    if (!v.is_boolean()) return badMember(name, "a boolean");
    f.behaviour.*field = v.get<bool>();
    return common::success();
  };
}

Setter nonNegativeBehaviour(double BehaviourFaults::*field) {
  return [field](Faults& f, const Json& v, const std::string& name) -> common::Result<void> {
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1e9) {
      return badMember(name, "a number >= 0");
    }
    f.behaviour.*field = v.get<double>();
    return common::success();
  };
}

common::Result<FirmwareSlowdown> slowdownRule(const Json& v, const std::string& name) {
  if (!v.is_object()) return badMember(name, "an object {match, version, percent}");
  for (const auto& [key, value] : v.items()) {
    if (key != "match" && key != "version" && key != "percent") {
      return common::invalidArgument("invalid_fault",
                                     "fault member '" + name + "' has no member '" + key + "'",
                                     name + "." + key);
    }
  }
  FirmwareSlowdown rule;
  for (const char* key : {"match", "version"}) {
    auto it = v.find(key);
    if (it == v.end() || !it->is_string() || it->get<std::string>().empty()) {
      return badMember(name + "." + key, "a non-empty string");
    }
    (std::string_view(key) == "match" ? rule.match : rule.version) = it->get<std::string>();
  }
  auto percent = v.find("percent");
  if (percent == v.end() || !percent->is_number() || percent->get<double>() <= 0 ||
      percent->get<double>() >= 100) {
    return badMember(name + ".percent", "a number above 0 and below 100");
  }
  rule.percent = percent->get<double>();
  return rule;
}

common::Result<void> setFirmwareSlowdown(Faults& f, const Json& v, const std::string& name) {
  std::vector<FirmwareSlowdown> rules;
  if (v.is_object()) {
    PROV_ASSIGN(FirmwareSlowdown rule, slowdownRule(v, name));
    rules.push_back(std::move(rule));
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      PROV_ASSIGN(FirmwareSlowdown rule, slowdownRule(v[i], name + "[" + std::to_string(i) + "]"));
      rules.push_back(std::move(rule));
    }
  } else if (!v.is_null()) {
    return badMember(name, "a slowdown rule, an array of them, or null");
  }
  f.host.firmwareSlowdowns = std::move(rules);
  return common::success();
}

common::Result<void> setMaxSessions(Faults& f, const Json& v, const std::string& name) {
  if (v.is_null()) {
    f.behaviour.maxSessions.reset();
    return common::success();
  }
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1'000'000) {
    return badMember(name, "an integer >= 0 or null");
  }
  f.behaviour.maxSessions = static_cast<int>(v.get<std::int64_t>());
  return common::success();
}

common::Result<void> setSessionTimeout(Faults& f, const Json& v, const std::string& name) {
  if (v.is_null()) {
    f.behaviour.sessionTimeoutSeconds.reset();
    return common::success();
  }
  if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 1e9) {
    return badMember(name, "a number of seconds > 0 or null");
  }
  f.behaviour.sessionTimeoutSeconds = v.get<double>();
  return common::success();
}

common::Result<void> setChassisSerial(Faults& f, const Json& v, const std::string& name) {
  if (v.is_null()) {
    f.behaviour.chassisSerial.reset();
    return common::success();
  }
  if (!v.is_string()) return badMember(name, "a string or null");
  f.behaviour.chassisSerial = v.get<std::string>();
  return common::success();
}

// Validated by the agent's own parser, so a fault the agent would refuse is refused here; its
// errors name "faults[i].x", which becomes "gpu_faults[i].x".
common::Result<void> setGpuFaults(Faults& f, const Json& v, const std::string& name) {
  if (v.is_null()) {
    f.host.gpuFaults.clear();
    return common::success();
  }
  if (!v.is_array()) return badMember(name, "an array of GPU faults or null");
  auto parsed = agent::parseSimConfig(Json{{"gpus", kMaxSimulatedGpus}, {"faults", v}});
  if (!parsed) {
    common::Error error = std::move(parsed).error();
    std::string field = error.field.rfind("faults", 0) == 0 ? name + error.field.substr(6) : name;
    std::string message = error.message.rfind(error.field, 0) == 0 && !error.field.empty()
                              ? field + error.message.substr(error.field.size())
                              : field + ": " + error.message;
    return common::invalidArgument("invalid_fault", "fault member " + message, field);
  }
  f.host.gpuFaults = std::move(parsed->faults);
  return common::success();
}

common::Result<int> componentIndex(const Json& v, const std::string& name) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
      v.get<std::int64_t>() > kMaxSimulatedGpus) {
    return badMember(name, "an integer from 1 to " + std::to_string(kMaxSimulatedGpus));
  }
  return static_cast<int>(v.get<std::int64_t>());
}

// {"<index_key>": n, "health": "Warning"|"Critical", "message": text}, or null.
Setter componentHealth(std::optional<ComponentHealthFault> BehaviourFaults::*field,
                       const char* indexKey) {
  return
      [field, indexKey](Faults& f, const Json& v, const std::string& name) -> common::Result<void> {
        if (v.is_null()) {
          (f.behaviour.*field).reset();
          return common::success();
        }
        if (!v.is_object()) return badMember(name, "an object or null");
        ComponentHealthFault fault;
        for (const auto& [key, value] : v.items()) {
          const std::string at = name + "." + key;
          if (key == indexKey) {
            PROV_ASSIGN(fault.index, componentIndex(value, at));
          } else if (key == "health") {
            if (value != "Warning" && value != "Critical") {
              return badMember(at, "\"Warning\" or \"Critical\"");
            }
            fault.health = value.get<std::string>();
          } else if (key == "message") {
            if (!value.is_string()) return badMember(at, "a string");
            fault.message = value.get<std::string>();
          } else {
            return common::invalidArgument(
                "invalid_fault", "fault member '" + name + "' has no member '" + key + "'", at);
          }
        }
        f.behaviour.*field = std::move(fault);
        return common::success();
      };
}

common::Result<void> setGpuOffBus(Faults& f, const Json& v, const std::string& name) {
  if (v.is_null()) {
    f.behaviour.gpuOffBus.reset();
    return common::success();
  }
  PROV_ASSIGN(f.behaviour.gpuOffBus, componentIndex(v, name));
  return common::success();
}

Json componentHealthJson(const std::optional<ComponentHealthFault>& fault, const char* indexKey) {
  if (!fault) return nullptr;
  return {{indexKey, fault->index}, {"health", fault->health}, {"message", fault->message}};
}

Json gpuFaultJson(const agent::SimFault& fault) {
  Json out = {{"gpu", fault.gpu}, {"kind", fault.kind}};
  if (fault.factor != 1) out["factor"] = fault.factor;
  if (fault.corrected != 0) out["corrected"] = fault.corrected;
  if (fault.uncorrected != 0) out["uncorrected"] = fault.uncorrected;
  if (fault.count != 0) out["count"] = fault.count;
  if (fault.code != 0) out["code"] = fault.code;
  if (!fault.test.empty()) out["test"] = fault.test;
  return out;
}

const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table = {
      {"latency_ms", nonNegative(&LatencyModel::medianMs)},
      {"latency_sigma", nonNegative(&LatencyModel::sigma)},
      {"slow_factor", positive(&LatencyModel::slowFactor)},
      {"http_5xx_rate", rate(&TransportFaults::http5xxRate)},
      {"timeout_rate", rate(&TransportFaults::timeoutRate)},
      {"reset_rate", rate(&TransportFaults::resetRate)},
      {"malformed_rate", rate(&TransportFaults::malformedRate)},
      {"hung_tasks", flag(&BehaviourFaults::hungTasks)},
      {"max_sessions", setMaxSessions},
      {"sessions_exhausted", flag(&BehaviourFaults::sessionsExhausted)},
      {"session_timeout_seconds", setSessionTimeout},
      {"vanish_during_firmware_update", flag(&BehaviourFaults::vanishDuringFirmwareUpdate)},
      {"pcie_down_trained", flag(&BehaviourFaults::pcieDownTrained)},
      {"chassis_serial", setChassisSerial},
      {"ignore_boot_override", flag(&BehaviourFaults::ignoreBootOverride)},
      {"certificate_rotated", flag(&BehaviourFaults::certificateRotated)},
      {"gpu_faults", setGpuFaults},
      {"firmware_task_fails", flag(&BehaviourFaults::firmwareTaskFails)},
      {"firmware_version_unchanged", flag(&BehaviourFaults::firmwareVersionUnchanged)},
      {"downgrade_needs_force", flag(&BehaviourFaults::downgradeNeedsForce)},
      {"away_after_update_minutes", nonNegativeBehaviour(&BehaviourFaults::awayAfterUpdateMinutes)},
      {"bmc_restart_seconds", nonNegativeBehaviour(&BehaviourFaults::bmcRestartSeconds)},
      {"firmware_slowdown", setFirmwareSlowdown},
      {"drive_erase_fails", flag(&BehaviourFaults::driveEraseFails)},
      {"drive_erase_hangs", flag(&BehaviourFaults::driveEraseHangs)},
      {"secure_erase_unsupported", flag(&BehaviourFaults::secureEraseUnsupported)},
      {"gpu_health", componentHealth(&BehaviourFaults::gpuHealth, "gpu")},
      {"gpu_off_bus", setGpuOffBus},
      {"psu_health", componentHealth(&BehaviourFaults::psuHealth, "psu")},
  };
  return table;
}

}  // namespace

common::Result<Faults> applyFaultsJson(Faults base, const nlohmann::json& patch) {
  if (!patch.is_object()) {
    return common::invalidArgument("invalid_fault", "faults must be a JSON object", "faults");
  }
  for (const auto& [name, value] : patch.items()) {
    auto setter = setters().find(name);
    if (setter == setters().end()) {
      return common::invalidArgument("unknown_fault", "unknown fault member '" + name + "'", name);
    }
    PROV_TRY(setter->second(base, value, name));
  }
  return base;
}

nlohmann::json faultsToJson(const Faults& faults) {
  const auto& b = faults.behaviour;
  Json out = {
      {"latency_ms", faults.latency.medianMs},
      {"latency_sigma", faults.latency.sigma},
      {"slow_factor", faults.latency.slowFactor},
      {"http_5xx_rate", faults.transport.http5xxRate},
      {"timeout_rate", faults.transport.timeoutRate},
      {"reset_rate", faults.transport.resetRate},
      {"malformed_rate", faults.transport.malformedRate},
      {"hung_tasks", b.hungTasks},
      {"max_sessions", nullptr},
      {"sessions_exhausted", b.sessionsExhausted},
      {"session_timeout_seconds",
       b.sessionTimeoutSeconds ? Json(*b.sessionTimeoutSeconds) : Json(nullptr)},
      {"vanish_during_firmware_update", b.vanishDuringFirmwareUpdate},
      {"pcie_down_trained", b.pcieDownTrained},
      {"chassis_serial", nullptr},
      {"ignore_boot_override", b.ignoreBootOverride},
      {"certificate_rotated", b.certificateRotated},
      {"firmware_task_fails", b.firmwareTaskFails},
      {"firmware_version_unchanged", b.firmwareVersionUnchanged},
      {"downgrade_needs_force", b.downgradeNeedsForce},
      {"away_after_update_minutes", b.awayAfterUpdateMinutes},
      {"bmc_restart_seconds", b.bmcRestartSeconds},
      {"drive_erase_fails", b.driveEraseFails},
      {"drive_erase_hangs", b.driveEraseHangs},
      {"secure_erase_unsupported", b.secureEraseUnsupported},
  };
  out["firmware_slowdown"] = Json::array();
  for (const auto& rule : faults.host.firmwareSlowdowns) {
    out["firmware_slowdown"].push_back(
        {{"match", rule.match}, {"version", rule.version}, {"percent", rule.percent}});
  }
  out["gpu_faults"] = Json::array();
  for (const auto& fault : faults.host.gpuFaults) out["gpu_faults"].push_back(gpuFaultJson(fault));
  if (b.maxSessions) out["max_sessions"] = *b.maxSessions;
  if (b.chassisSerial) out["chassis_serial"] = *b.chassisSerial;
  out["gpu_health"] = componentHealthJson(b.gpuHealth, "gpu");
  out["gpu_off_bus"] = b.gpuOffBus ? Json(*b.gpuOffBus) : Json(nullptr);
  out["psu_health"] = componentHealthJson(b.psuHealth, "psu");
  return out;
}

}  // namespace sim
