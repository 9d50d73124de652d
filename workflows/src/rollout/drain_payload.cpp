#include "drain_payload.hpp"

#include "../lifecycle/handoff_payload.hpp"

namespace workflows::rollout {

common::Result<nlohmann::json> drainPayload(const std::string& format, DrainAction action,
                                            const inventory::Node& node,
                                            const std::string& reason) {
  const bool drain = action == DrainAction::kDrain;
  const std::string hostname = lifecycle::nodeHostname(node);
  if (format == "generic" || format.empty()) {
    return nlohmann::json{{"action", drain ? "drain" : "resume"},
                          {"reason", reason},
                          {"node",
                           {{"id", node.id},
                            {"hostname", hostname},
                            {"serial", node.chassis_serial},
                            {"site", node.site},
                            {"rack", node.rack},
                            {"model", node.hardware_model}}}};
  }
  if (format == "slurm") {
    return nlohmann::json{
        {"nodes", {hostname}}, {"state", drain ? "drain" : "resume"}, {"reason", reason}};
  }
  if (format == "kubernetes") {
    return nlohmann::json{{"apiVersion", "v1"},
                          {"kind", "Node"},
                          {"metadata", {{"name", hostname}}},
                          {"spec", {{"unschedulable", drain}}}};
  }
  return common::fail(common::invalidArgument(
      "invalid_drain_format", "drain format must be generic, slurm or kubernetes: " + format,
      "drain_format"));
}

bool schedulerSaysIdle(const std::string& body) {
  const auto answer = nlohmann::json::parse(body, nullptr, false);
  if (!answer.is_object()) return true;
  auto it = answer.find("idle");
  return it == answer.end() || !it->is_boolean() || it->get<bool>();
}

}  // namespace workflows::rollout
