#include "handoff_payload.hpp"

#include <cctype>

namespace workflows::lifecycle {
namespace {

nlohmann::json gpus(const inventory::NodeDetail& d) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : d.components) {
    if (c.kind != "gpu") continue;
    out.push_back({{"slot", c.slot},
                   {"model", c.model},
                   {"serial", c.serial},
                   {"firmware_version", c.firmware_version}});
  }
  return out;
}

// A Kubernetes label value: at most 63 of [A-Za-z0-9-_.], starting and ending alphanumeric.
std::string labelValue(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    out += ok ? c : '_';
    if (out.size() == 63) break;
  }
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.back()))) out.pop_back();
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(0, 1);
  return out;
}

nlohmann::json generic(const inventory::NodeDetail& d) {
  const auto& n = d.node;
  return {{"id", n.id},
          {"hostname", nodeHostname(n)},
          {"state", n.state},
          {"chassis_serial", n.chassis_serial},
          {"hardware_model", n.hardware_model},
          {"bmc_address", n.bmc_address},
          {"site", n.site},
          {"rack", n.rack},
          {"u_position", n.u_position ? nlohmann::json(*n.u_position) : nlohmann::json()},
          {"gpu_count", n.gpu_count},
          {"gpus", gpus(d)}};
}

nlohmann::json kubernetes(const inventory::NodeDetail& d) {
  const auto& n = d.node;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", nodeHostname(n)},
            {"labels",
             {{"provisioner/model", labelValue(n.hardware_model)},
              {"provisioner/rack", labelValue(n.rack)},
              {"provisioner/site", labelValue(n.site)},
              {"provisioner/serial", labelValue(n.chassis_serial)},
              {"nvidia.com/gpu.count", std::to_string(n.gpu_count)}}}}},
          {"spec", {{"unschedulable", false}}}};
}

}  // namespace

std::string nodeHostname(const inventory::Node& node) {
  std::string out;
  for (char c : node.chassis_serial) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  return out.empty() ? "node-" + std::to_string(node.id) : out;
}

common::Result<nlohmann::json> handoffPayload(const std::string& format,
                                              const inventory::NodeDetail& detail) {
  if (format == "generic" || format.empty()) return generic(detail);
  if (format == "slurm") {
    return nlohmann::json{
        {"nodes", {nodeHostname(detail.node)}},
        {"state", "resume"},
        {"reason", "provisioned and burned in (node " + std::to_string(detail.node.id) + ")"}};
  }
  if (format == "kubernetes") return kubernetes(detail);
  return common::fail(common::invalidArgument(
      "invalid_handoff_format", "handoff format must be generic, slurm or kubernetes: " + format,
      "handoff_format"));
}

}  // namespace workflows::lifecycle
