// SQL of purchase order reconciliation: expected units against the nodes that arrived.
#pragma once

#include "db.hpp"
#include "queries_nodes.hpp"

namespace inventory::detail {

constexpr Query kSelectPoId{"select_po_id", "SELECT id FROM purchase_orders WHERE po_number = $1"};
// Each unit with the node it matches: by chassis serial, else by BMC MAC. `inspected`: the node
// has had its components reported at least once, even as none (a node quarantined before
// inspection has no report, so its GPU count is unknown, not 0).
constexpr Query kSelectUnitMatches{"select_unit_matches", R"(
  SELECT e.chassis_serial, e.model, coalesce(e.bmc_mac, ''), e.gpu_count, e.rack, e.u_position,
         m.id, m.chassis_serial, m.hardware_model, coalesce(m.bmc_mac, ''), m.gpu_count, m.rack,
         m.u_position,
         coalesce((SELECT r.components_reported_at IS NOT NULL FROM nodes r WHERE r.id = m.id),
                  false) AS inspected
    FROM expected_assets e
    LEFT JOIN LATERAL (
      SELECT * FROM (
        SELECT v.*, 0 AS priority FROM node_summary v WHERE v.chassis_serial = e.chassis_serial
        UNION ALL
        SELECT v.*, 1 FROM node_summary v WHERE e.bmc_mac IS NOT NULL AND v.bmc_mac = e.bmc_mac
      ) candidates ORDER BY priority LIMIT 1) m ON true
   WHERE e.po_id = $1
   ORDER BY e.id)"};
// Nodes standing in the PO's destination racks that match none of its units.
constexpr Query kSelectUnexpectedNodes{"select_unexpected_nodes",
                                       "SELECT " INVENTORY_NODE_COLUMNS
                                       " FROM node_summary v"
                                       " WHERE v.rack_id IN ("
                                       "   SELECT r.id FROM racks r WHERE r.name IN ("
                                       "     SELECT e.rack FROM expected_assets e"
                                       "     WHERE e.po_id = $1 AND e.rack <> ''))"
                                       " AND NOT EXISTS ("
                                       "   SELECT 1 FROM expected_assets e WHERE e.po_id = $1"
                                       "   AND (e.chassis_serial = v.chassis_serial"
                                       "        OR e.bmc_mac = v.bmc_mac))"
                                       " ORDER BY v.id"};

}  // namespace inventory::detail
