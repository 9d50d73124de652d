// SQL of asset lookup by serial.
#pragma once

#include "db.hpp"

namespace inventory::detail {

// One statement per lookup: a round trip and an executor start-up per statement were most of the
// cost. CTE `a` finds the serial wherever it is (a node's chassis wins over a component, which
// wins over a unit still on order) with its location; the branches below it add the rows that
// kind of asset needs, each keyed by an InitPlan on `a`, so the branches of the other kinds read
// nothing. lookupAsset() assembles the rows; it orders the history and pairs firmware records
// with their predecessors in C++, which spares PostgreSQL a window function and a sort.
//
// Every row: tag, then columns named after the asset row. By tag:
//   asset:     asset_type, ref_id, kind, manufacturer, model, part_number, state,
//              firmware_version, site, room, row_name, rack, u_position, node_id, node_serial,
//              slot, po_number, ordered_at (the PO's order time, when there is one)
//   event:     ref_id = event id, kind, node_id, po_number = reason, ordered_at = at
//   component: ref_id = component id, kind, manufacturer, model, part_number, state = serial,
//              firmware_version, slot, ordered_at = installed_at (rows of a node)
//   placement: ref_id = placement id, rack = removed_at, node_id, node_serial, slot,
//              po_number = removal reason, ordered_at = installed_at (rows of a component)
//   firmware:  ref_id = record id, firmware_version, node_id, node_serial, ordered_at = observed
// The final ORDER BY puts a node's components in kind, slot, serial order under the database's
// collation (C++ cannot reproduce it); it sorts a few dozen rows at most.
constexpr Query kLookupAsset{"lookup_asset", R"(
  WITH a AS MATERIALIZED (
    SELECT * FROM (
      SELECT 0 AS priority, 'node' AS asset_type, n.id AS ref_id, 'node' AS kind,
             '' AS manufacturer, n.hardware_model AS model, '' AS part_number, n.state,
             '' AS firmware_version, s.name AS site, rm.name AS room, rw.name AS row_name,
             r.name AS rack, n.u_position, n.id AS node_id, n.chassis_serial AS node_serial,
             '' AS slot, po.po_number, iso8601(e.created_at) AS ordered_at
        FROM nodes n
        LEFT JOIN racks r ON r.id = n.rack_id
        LEFT JOIN sites s ON s.id = r.site_id
        LEFT JOIN rooms rm ON rm.id = r.room_id
        LEFT JOIN rows rw ON rw.id = r.row_id
        LEFT JOIN expected_assets e ON e.chassis_serial = n.chassis_serial
        LEFT JOIN purchase_orders po ON po.id = e.po_id
       WHERE n.chassis_serial = $1
      UNION ALL
      SELECT 1, 'component', c.id, c.kind, c.manufacturer, c.model, c.part_number,
             coalesce(n.state, 'removed'), c.firmware_version, s.name, rm.name, rw.name, r.name,
             n.u_position, n.id, n.chassis_serial, p.slot, NULL, NULL
        FROM components c
        LEFT JOIN component_placements p ON p.component_id = c.id AND p.removed_at IS NULL
        LEFT JOIN nodes n ON n.id = p.node_id
        LEFT JOIN racks r ON r.id = n.rack_id
        LEFT JOIN sites s ON s.id = r.site_id
        LEFT JOIN rooms rm ON rm.id = r.room_id
        LEFT JOIN rows rw ON rw.id = r.row_id
       WHERE c.serial = $1
      UNION ALL
      SELECT 2, 'expected', e.id, 'node', '', e.model, '', 'ordered', '', NULL, NULL, NULL,
             nullif(e.rack, ''), e.u_position, NULL, NULL, NULL, po.po_number,
             iso8601(e.created_at)
        FROM expected_assets e JOIN purchase_orders po ON po.id = e.po_id
       WHERE e.chassis_serial = $1
    ) found ORDER BY priority LIMIT 1)
  SELECT 'asset' AS tag, asset_type, ref_id, kind, manufacturer, model, part_number, state,
         firmware_version, site, room, row_name, rack, u_position, node_id, node_serial, slot,
         po_number, ordered_at
    FROM a
  UNION ALL
  SELECT 'event', '', ev.id, ev.kind, '', '', '', '', '', '', '', '', '', NULL, ev.node_id, '',
         '', CASE WHEN ev.kind = 'state_changed' THEN ev.message ELSE '' END, iso8601(ev.at)
    FROM node_events ev
   WHERE ev.node_id = (SELECT ref_id FROM a WHERE asset_type = 'node')
     AND ev.kind IN ('registered', 'state_changed')
  UNION ALL
  SELECT 'component', '', c.id, c.kind, c.manufacturer, c.model, c.part_number, c.serial,
         c.firmware_version, '', '', '', '', NULL, p.node_id, '', p.slot, '',
         iso8601(p.installed_at)
    FROM component_placements p JOIN components c ON c.id = p.component_id
   WHERE p.node_id = (SELECT ref_id FROM a WHERE asset_type = 'node') AND p.removed_at IS NULL
  UNION ALL
  SELECT 'placement', '', p.id, '', '', '', '', '', '', '', '', '', iso8601(p.removed_at), NULL,
         p.node_id, n.chassis_serial, p.slot,
         p.removal_reason || coalesce(': ' || p.rma_ticket, ''), iso8601(p.installed_at)
    FROM component_placements p JOIN nodes n ON n.id = p.node_id
   WHERE p.component_id = (SELECT ref_id FROM a WHERE asset_type = 'component')
  UNION ALL
  SELECT 'firmware', '', f.id, '', '', '', '', '', f.version, '', '', '', '', NULL, f.node_id,
         coalesce(n.chassis_serial, ''), '', '', iso8601(f.observed_at)
    FROM component_firmware f LEFT JOIN nodes n ON n.id = f.node_id
   WHERE f.component_id = (SELECT ref_id FROM a WHERE asset_type = 'component')
  ORDER BY tag, kind, slot, state)"};

}  // namespace inventory::detail
