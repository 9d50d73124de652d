#include "inventory/nodes.hpp"

#include "catalog_values.hpp"
#include "db.hpp"
#include "node_rows.hpp"
#include "queries_nodes.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

// Checks what can be checked without the database; returns the spec with its MAC normalised.
common::Result<NodeSpec> validateNode(const NodeSpec& spec) {
  if (spec.chassis_serial.empty()) {
    return common::invalidArgument("missing_field", "chassis_serial is required", "chassis_serial");
  }
  if (!isNodeState(spec.state)) {
    return common::invalidArgument("invalid_state", "unknown node state " + spec.state, "state");
  }
  auto mac = detail::normalizeMac(spec.bmc_mac);
  if (!mac) {
    return common::invalidArgument("invalid_bmc_mac", "bmc_mac is not a MAC address", "bmc_mac");
  }
  if (spec.u_position && !spec.rack_id) {
    return common::invalidArgument("invalid_u_position", "u_position needs a rack_id",
                                   "u_position");
  }
  NodeSpec normalised = spec;
  normalised.bmc_mac = *mac;
  return normalised;
}

common::Result<void> checkRackPosition(Tx& tx, const NodeSpec& spec) {
  if (!spec.rack_id) return common::success();
  auto rack = tx.exec(detail::kSelectRackHeight, *spec.rack_id);
  if (rack.empty()) {
    return common::notFound("rack_not_found", "no rack with id " + std::to_string(*spec.rack_id));
  }
  int height = rack[0][0].as<int>();
  if (spec.u_position && (*spec.u_position < 1 || *spec.u_position > height)) {
    return common::invalidArgument(
        "invalid_u_position",
        "u_position must be between 1 and the rack height (" + std::to_string(height) + ")",
        "u_position");
  }
  return common::success();
}

common::Result<Node> readNode(Tx& tx, Id node_id) {
  auto rows = tx.exec(detail::kSelectNodeById, node_id);
  if (rows.empty()) return detail::nodeNotFound(node_id);
  return detail::nodeFromRow(rows[0]);
}

}  // namespace

common::Result<Node> createNode(Database& db, const NodeSpec& input, const std::string& actor) {
  auto checked = validateNode(input);
  if (!checked) return common::fail(std::move(checked).error());
  const NodeSpec& spec = *checked;
  return detail::withTransaction(db, "create_node", [&](Tx& tx) -> common::Result<Node> {
    PROV_TRY(checkRackPosition(tx, spec));
    Id node_id = detail::id(tx.exec(detail::kInsertNode, spec.chassis_serial, spec.hardware_model,
                                    spec.bmc_address, detail::nullIfEmpty(spec.bmc_mac),
                                    spec.rack_id, spec.u_position, spec.state)[0][0]);
    detail::insertEvent(tx, node_id, actor, "registered", "node registered",
                        detail::JsonObject()
                            .add("chassis_serial", spec.chassis_serial)
                            .add("state", spec.state)
                            .str());
    return readNode(tx, node_id);
  });
}

common::Result<Node> getNode(Database& db, Id node_id) {
  return detail::withRead(db, "get_node", [&](Tx& tx) { return readNode(tx, node_id); });
}

common::Result<std::optional<Node>> findNodeBySerial(Database& db, const std::string& serial) {
  using Found = std::optional<Node>;
  return detail::withRead(db, "find_node_by_serial", [&](Tx& tx) -> common::Result<Found> {
    auto rows = tx.exec(detail::kSelectNodeBySerial, serial);
    if (rows.empty()) return Found();
    return Found(detail::nodeFromRow(rows[0]));
  });
}

common::Result<NodeDetail> getNodeDetail(Database& db, Id node_id) {
  // One snapshot so the components and the timeline agree with each other.
  return detail::withTransaction(db, "get_node_detail", [&](Tx& tx) -> common::Result<NodeDetail> {
    auto node = readNode(tx, node_id);
    if (!node) return common::fail(std::move(node).error());
    NodeDetail d;
    d.node = std::move(node).value();
    for (const auto& row : tx.exec(detail::kSelectNodeComponents, node_id)) {
      d.components.push_back(detail::componentFromRow(row));
    }
    for (const auto& row : tx.exec(detail::kSelectNodeEvents, node_id)) {
      d.timeline.push_back(detail::eventFromRow(row));
    }
    return d;
  });
}

common::Result<Page<Node>> listNodes(Database& db, const NodeFilter& f) {
  int limit = detail::clampLimit(f.page.limit);
  return detail::withRead(db, "list_nodes", [&](Tx& tx) -> common::Result<Page<Node>> {
    std::vector<Node> nodes;
    for (const auto& row : tx.exec(detail::kSelectNodePage, f.state, f.model, f.site, f.rack,
                                   f.firmware_version, f.page.after, limit + 1)) {
      nodes.push_back(detail::nodeFromRow(row));
    }
    return detail::makePage(std::move(nodes), limit);
  });
}

common::Result<Node> setNodeState(Database& db, Id node_id, const std::string& state,
                                  const std::string& actor, const std::string& reason) {
  return setNodeState(db, node_id, state, actor, reason, "{}");
}

common::Result<Node> setNodeState(Database& db, Id node_id, const std::string& state,
                                  const std::string& actor, const std::string& reason,
                                  const std::string& detail_json) {
  const std::string detail = detail_json.empty() ? "{}" : detail_json;
  if (!isNodeState(state)) {
    return common::invalidArgument("invalid_state", "unknown node state " + state, "state");
  }
  return detail::withTransaction(db, "set_node_state", [&](Tx& tx) -> common::Result<Node> {
    auto locked = tx.exec(detail::kLockNode, node_id);
    if (locked.empty()) return detail::nodeNotFound(node_id);
    PROV_TRY(detail::requireJson(detail, "state_detail"));
    std::string from = locked[0][0].c_str();
    // The reason is stored even when the state stays (a quarantine's cause may be refined).
    tx.exec(detail::kUpdateNodeState, node_id, state, reason, detail);
    if (from != state) {
      std::string message = "state " + from + " -> " + state;
      if (!reason.empty()) message += ": " + reason;
      detail::insertEvent(
          tx, node_id, actor, "state_changed", message,
          detail::JsonObject().add("from", from).add("to", state).add("reason", reason).str());
    }
    return readNode(tx, node_id);
  });
}

common::Result<NodeEvent> appendNodeEvent(Database& db, const NodeEvent& event) {
  if (event.kind.empty())
    return common::invalidArgument("missing_field", "kind is required", "kind");
  const std::string detail_json = event.detail_json.empty() ? "{}" : event.detail_json;
  return detail::withTransaction(db, "append_node_event", [&](Tx& tx) -> common::Result<NodeEvent> {
    if (tx.exec(detail::kNodeExists, event.node_id).empty()) {
      return detail::nodeNotFound(event.node_id);
    }
    return detail::insertEvent(tx, event.node_id, event.actor, event.kind, event.message,
                               detail_json);
  });
}

}  // namespace inventory
