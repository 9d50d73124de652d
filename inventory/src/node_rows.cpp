#include "node_rows.hpp"

#include <nlohmann/json.hpp>

#include "queries_nodes.hpp"

namespace inventory::detail {

Labels labelsFromText(const std::string& text) {
  Labels labels;
  const auto object = nlohmann::json::parse(text.empty() ? "{}" : text, nullptr, false);
  if (!object.is_object()) return labels;
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) labels.emplace(key, value.get<std::string>());
  }
  return labels;
}

std::string labelsToText(const Labels& labels) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [key, value] : labels) object[key] = value;
  return object.dump();
}

Node nodeFromRow(const pqxx::row& row) {
  Node n;
  n.id = id(row[0]);
  n.state = row[1].c_str();
  n.hardware_model = row[2].c_str();
  n.chassis_serial = row[3].c_str();
  n.bmc_address = row[4].c_str();
  n.bmc_mac = row[5].c_str();
  n.rack_id = optId(row[6]);
  n.site = row[7].c_str();
  n.rack = row[8].c_str();
  n.u_position = optInt(row[9]);
  n.gpu_count = row[10].as<int>();
  n.created_at = row[11].c_str();
  n.updated_at = row[12].c_str();
  n.state_reason = row[13].c_str();
  n.labels = labelsFromText(text(row[14]));
  return n;
}

Component componentFromRow(const pqxx::row& row) {
  Component c;
  c.id = id(row[0]);
  c.kind = row[1].c_str();
  c.slot = text(row[2]);
  c.manufacturer = row[3].c_str();
  c.model = row[4].c_str();
  c.part_number = row[5].c_str();
  c.serial = row[6].c_str();
  c.firmware_version = row[7].c_str();
  c.installed_at = text(row[8]);
  return c;
}

NodeEvent eventFromRow(const pqxx::row& row) {
  NodeEvent e;
  e.id = id(row[0]);
  e.node_id = id(row[1]);
  e.at = row[2].c_str();
  e.actor = row[3].c_str();
  e.kind = row[4].c_str();
  e.message = row[5].c_str();
  e.detail_json = row[6].c_str();
  return e;
}

NodeEvent insertEvent(Tx& tx, Id node_id, const std::string& actor, const std::string& kind,
                      const std::string& message, const std::string& detail_json) {
  return eventFromRow(tx.exec(kInsertNodeEvent, node_id, actor, kind, message, detail_json)[0]);
}

common::Error nodeNotFound(Id node_id) {
  return common::notFound("node_not_found", "no node with id " + std::to_string(node_id));
}

}  // namespace inventory::detail
