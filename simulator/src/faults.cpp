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

Json gpuFaultJson(const agent::SimFault& fault) {
  Json out = {{"gpu", fault.gpu}, {"kind", fault.kind}};
  if (fault.factor != 1) out["factor"] = fault.factor;
  if (fault.corrected != 0) out["corrected"] = fault.corrected;
  if (fault.uncorrected != 0) out["uncorrected"] = fault.uncorrected;
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
      {"vanish_during_firmware_update", flag(&BehaviourFaults::vanishDuringFirmwareUpdate)},
      {"pcie_down_trained", flag(&BehaviourFaults::pcieDownTrained)},
      {"chassis_serial", setChassisSerial},
      {"ignore_boot_override", flag(&BehaviourFaults::ignoreBootOverride)},
      {"certificate_rotated", flag(&BehaviourFaults::certificateRotated)},
      {"gpu_faults", setGpuFaults},
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
      {"vanish_during_firmware_update", b.vanishDuringFirmwareUpdate},
      {"pcie_down_trained", b.pcieDownTrained},
      {"chassis_serial", nullptr},
      {"ignore_boot_override", b.ignoreBootOverride},
      {"certificate_rotated", b.certificateRotated},
  };
  out["gpu_faults"] = Json::array();
  for (const auto& fault : faults.host.gpuFaults) out["gpu_faults"].push_back(gpuFaultJson(fault));
  if (b.maxSessions) out["max_sessions"] = *b.maxSessions;
  if (b.chassisSerial) out["chassis_serial"] = *b.chassisSerial;
  return out;
}

}  // namespace sim
