// SQL of asset lookup by serial. The first statement finds the serial wherever it is (a node's
// chassis wins over a component, which wins over a unit still on order) with its location.
#pragma once

#include "db.hpp"

namespace inventory::detail {

// Columns: asset_type, ref_id, kind, manufacturer, model, part_number, state, firmware_version,
// site, room, row, rack, u_position, node_id, node_serial, slot, po_number, ordered_at.
constexpr Query kLookupAsset{"lookup_asset", R"(
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
  ) found ORDER BY priority LIMIT 1)"};

// History columns: at, event, node_id, node_serial, slot, from_version, to_version, reason.
// On equal times (one transaction) a removal sorts before the installation it made room for.
constexpr Query kNodeHistory{"node_history", R"(
  SELECT iso8601(at), event, node_id, node_serial, '', '', '', reason FROM (
    SELECT e.created_at AS at, 0 AS ord, e.id AS seq, 'ordered' AS event, NULL::bigint AS node_id,
           '' AS node_serial, po.po_number AS reason
      FROM nodes n
      JOIN expected_assets e ON e.chassis_serial = n.chassis_serial
      JOIN purchase_orders po ON po.id = e.po_id
     WHERE n.id = $1
    UNION ALL
    SELECT ev.at, 1, ev.id, ev.kind, ev.node_id, n.chassis_serial,
           CASE WHEN ev.kind = 'state_changed' THEN ev.message ELSE '' END
      FROM node_events ev JOIN nodes n ON n.id = ev.node_id
     WHERE ev.node_id = $1 AND ev.kind IN ('registered', 'state_changed')
  ) h ORDER BY at, ord, seq)"};
constexpr Query kComponentHistory{"component_history", R"(
  SELECT iso8601(at), event, node_id, node_serial, slot, from_version, to_version, reason FROM (
    SELECT p.installed_at AS at, 1 AS ord, p.id AS seq, 'installed' AS event, p.node_id,
           n.chassis_serial AS node_serial, p.slot, '' AS from_version, '' AS to_version,
           '' AS reason
      FROM component_placements p JOIN nodes n ON n.id = p.node_id
     WHERE p.component_id = $1
    UNION ALL
    SELECT p.removed_at, 0, p.id, 'removed', p.node_id, n.chassis_serial, p.slot, '', '',
           p.removal_reason || coalesce(': ' || p.rma_ticket, '')
      FROM component_placements p JOIN nodes n ON n.id = p.node_id
     WHERE p.component_id = $1 AND p.removed_at IS NOT NULL
    UNION ALL
    SELECT f.observed_at, 2, f.id, 'firmware_changed', f.node_id,
           coalesce(n.chassis_serial, ''), '', f.previous, f.version, ''
      FROM (SELECT f.*, lag(f.version) OVER (ORDER BY f.id) AS previous
              FROM component_firmware f WHERE f.component_id = $1) f
      LEFT JOIN nodes n ON n.id = f.node_id
     WHERE f.previous IS NOT NULL
  ) h ORDER BY at, ord, seq)"};

}  // namespace inventory::detail
