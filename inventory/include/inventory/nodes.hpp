// Nodes, their components with full history, and their event timeline.
#pragma once

#include <optional>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

// Registers a node (and a "registered" timeline event). Duplicate chassis serial or BMC MAC:
// Conflict "duplicate_serial" / "duplicate_bmc_mac". Unknown rack: NotFound "rack_not_found".
// A U position outside the rack's height: InvalidArgument "invalid_u_position".
common::Result<Node> createNode(Database& db, const NodeSpec& spec, const std::string& actor);
common::Result<Node> getNode(Database& db, Id id);
// The node with this chassis serial; nullopt when none.
common::Result<std::optional<Node>> findNodeBySerial(Database& db, const std::string& serial);
common::Result<NodeDetail> getNodeDetail(Database& db, Id id);
common::Result<Page<Node>> listNodes(Database& db, const NodeFilter& filter);

// Records what the node holds now, in one transaction. History is appended, never overwritten:
// a part first seen is installed; a part seen on another node is moved (removed there, installed
// here); a part no longer reported is removed (with the report's reason, e.g. "rma"); a changed
// firmware version appends to the part's firmware history. Timeline events are written for each.
common::Result<ComponentReportOutcome> reportComponents(Database& db, Id node_id,
                                                        const ComponentReport& report);

// Stores `reason` (and `detail_json`, the evidence: serials, measurements) with the state; a
// "state_changed" timeline event when the state differs from the current one.
common::Result<Node> setNodeState(Database& db, Id node_id, const std::string& state,
                                  const std::string& actor, const std::string& reason);
common::Result<Node> setNodeState(Database& db, Id node_id, const std::string& state,
                                  const std::string& actor, const std::string& reason,
                                  const std::string& detail_json);

common::Result<NodeEvent> appendNodeEvent(Database& db, const NodeEvent& event);

}  // namespace inventory
