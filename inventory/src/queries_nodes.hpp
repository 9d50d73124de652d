// SQL of nodes and their timeline. The column lists are shared with the readers in node_rows.
#pragma once

#include "db.hpp"

// Columns read by nodeFromRow(), from the node_summary view aliased v.
#define INVENTORY_NODE_COLUMNS                                                      \
  "v.id, v.state, v.hardware_model, v.chassis_serial, v.bmc_address,"               \
  " coalesce(v.bmc_mac, ''), v.rack_id, v.site, v.rack, v.u_position, v.gpu_count," \
  " iso8601(v.created_at), iso8601(v.updated_at), v.state_reason, v.labels::text"
// Columns read by componentFromRow(), from components c joined to an open placement p.
#define INVENTORY_COMPONENT_COLUMNS                                         \
  "c.id, c.kind, p.slot, c.manufacturer, c.model, c.part_number, c.serial," \
  " c.firmware_version, iso8601(p.installed_at)"
// Columns read by eventFromRow().
#define INVENTORY_EVENT_COLUMNS "id, node_id, iso8601(at), actor, kind, message, detail::text"

namespace inventory::detail {

constexpr Query kSelectRackHeight{"select_rack_height", "SELECT u_height FROM racks WHERE id = $1"};
constexpr Query kInsertNode{"insert_node", R"(
  INSERT INTO nodes (chassis_serial, hardware_model, bmc_address, bmc_mac, rack_id, u_position,
                     state)
  VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id)"};
constexpr Query kSelectNodeById{"select_node_by_id", "SELECT " INVENTORY_NODE_COLUMNS
                                                     " FROM node_summary v "
                                                     "WHERE v.id = $1"};
constexpr Query kSelectNodeBySerial{"select_node_by_serial",
                                    "SELECT " INVENTORY_NODE_COLUMNS
                                    " FROM node_summary v WHERE v.chassis_serial = $1"};
// Empty filter values match everything; the planner folds them away per call.
constexpr Query kSelectNodePage{"select_node_page",
                                "SELECT " INVENTORY_NODE_COLUMNS
                                " FROM node_summary v "
                                "WHERE ($1 = '' OR v.state = $1) "
                                "AND ($2 = '' OR v.hardware_model = $2) "
                                "AND ($3 = '' OR v.site = $3) "
                                "AND ($4 = '' OR v.rack = $4) "
                                "AND ($5 = '' OR EXISTS ("
                                "  SELECT 1 FROM component_placements p"
                                "  JOIN components c ON c.id = p.component_id"
                                "  WHERE p.node_id = v.id AND p.removed_at IS NULL"
                                "  AND c.firmware_version = $5)) "
                                "AND v.id > $6::bigint ORDER BY v.id LIMIT $7"};
constexpr Query kLockNode{"lock_node",
                          "SELECT state, chassis_serial FROM nodes WHERE id = $1 FOR UPDATE"};
// Keeps the node from being deleted meanwhile without blocking other writers of its row.
constexpr Query kNodeExists{"node_exists", "SELECT 1 FROM nodes WHERE id = $1 FOR KEY SHARE"};
constexpr Query kUpdateNodeState{"update_node_state",
                                 "UPDATE nodes SET state = $2, state_reason = $3,"
                                 " state_detail = $4::jsonb, updated_at = now() WHERE id = $1"
                                 " AND (state, state_reason, state_detail)"
                                 " IS DISTINCT FROM ($2, $3, $4::jsonb)"};
constexpr Query kTouchNode{"touch_node", "UPDATE nodes SET updated_at = now() WHERE id = $1"};
// Every component report marks the node inspected, a report of no components too.
constexpr Query kMarkComponentsReported{
    "mark_components_reported", "UPDATE nodes SET components_reported_at = now() WHERE id = $1"};
constexpr Query kSelectNodeComponents{"select_node_components",
                                      "SELECT " INVENTORY_COMPONENT_COLUMNS
                                      " FROM component_placements p"
                                      " JOIN components c ON c.id = p.component_id"
                                      " WHERE p.node_id = $1 AND p.removed_at IS NULL"
                                      " ORDER BY c.kind, p.slot, c.serial"};
constexpr Query kInsertNodeEvent{"insert_node_event",
                                 "INSERT INTO node_events (node_id, actor, kind, message, detail) "
                                 "VALUES ($1, $2, $3, $4, $5::jsonb) "
                                 "RETURNING " INVENTORY_EVENT_COLUMNS};
constexpr Query kSelectNodeEvents{"select_node_events",
                                  "SELECT " INVENTORY_EVENT_COLUMNS
                                  " FROM node_events WHERE node_id = $1 ORDER BY id"};

}  // namespace inventory::detail
