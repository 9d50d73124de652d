// SQL of asset dispositions (migration 0007's asset_dispositions) and the end-of-life counts.
#pragma once

#include "db.hpp"

// Columns read by dispositionFromRow(), from asset_dispositions d left joined to nodes n.
#define INVENTORY_DISPOSITION_COLUMNS                                               \
  "d.id, coalesce(n.chassis_serial, d.component_serial), d.node_id, d.disposition," \
  " d.rma_ticket, d.rma_vendor, coalesce(to_char(d.shipped_on, 'YYYY-MM-DD'), '')," \
  " d.replacement_serial, d.recycler, d.recycler_certificate, d.weight_kg, d.note," \
  " d.recorded_by, iso8601(d.recorded_at)"

namespace inventory::detail {

// Where a serial is: a node (its state), or a component (the state of the node it is installed
// in, NULL when it is in no node). A node's chassis wins, as in the asset lookup.
constexpr Query kFindDispositionAsset{"find_disposition_asset", R"(
SELECT 'node', n.id, n.state FROM nodes n WHERE n.chassis_serial = $1
UNION ALL
SELECT 'component', NULL, n.state
  FROM components c
  LEFT JOIN component_placements p ON p.component_id = c.id AND p.removed_at IS NULL
  LEFT JOIN nodes n ON n.id = p.node_id
 WHERE c.serial = $1
 LIMIT 1)"};

constexpr Query kInsertDisposition{"insert_disposition", R"(
INSERT INTO asset_dispositions (node_id, component_serial, disposition, rma_ticket, rma_vendor,
  shipped_on, replacement_serial, recycler, recycler_certificate, weight_kg, note, recorded_by)
VALUES ($1, $2, $3, $4, $5, $6::date, $7, $8, $9, $10, $11, $12) RETURNING id)"};

constexpr Query kSelectDisposition{
    "select_disposition", "SELECT " INVENTORY_DISPOSITION_COLUMNS
                          " FROM asset_dispositions d LEFT JOIN nodes n ON n.id = d.node_id"
                          " WHERE d.id = $1"};

// Newest first: a node's by its chassis serial, or a component's.
constexpr Query kSelectDispositionsOfSerial{
    "select_dispositions_of_serial",
    "SELECT " INVENTORY_DISPOSITION_COLUMNS
    " FROM asset_dispositions d LEFT JOIN nodes n ON n.id = d.node_id"
    " WHERE d.node_id = (SELECT id FROM nodes WHERE chassis_serial = $1)"
    "    OR d.component_serial = $1"
    " ORDER BY d.id DESC"};

constexpr Query kSelectDispositionsReplacedBy{
    "select_dispositions_replaced_by",
    "SELECT " INVENTORY_DISPOSITION_COLUMNS
    " FROM asset_dispositions d LEFT JOIN nodes n ON n.id = d.node_id"
    " WHERE d.replacement_serial = $1 ORDER BY d.id DESC"};

constexpr Query kSelectPoId{"select_po_id_for_end_of_life",
                            "SELECT id FROM purchase_orders WHERE po_number = $1"};

// Per model of a purchase order's units: how many there are, how many of their nodes are
// retired, and each node's current (newest) disposition.
constexpr Query kEndOfLifeCounts{"end_of_life_counts", R"(
WITH latest AS (
  SELECT DISTINCT ON (node_id) node_id, disposition
    FROM asset_dispositions WHERE node_id IS NOT NULL
   ORDER BY node_id, id DESC)
SELECT e.model, count(*)::int,
       count(*) FILTER (WHERE n.state = 'retired')::int,
       count(*) FILTER (WHERE l.disposition = 'rma')::int,
       count(*) FILTER (WHERE l.disposition = 'spare')::int,
       count(*) FILTER (WHERE l.disposition = 'redeploy')::int,
       count(*) FILTER (WHERE l.disposition = 'recycled')::int
  FROM expected_assets e
  LEFT JOIN nodes n ON n.chassis_serial = e.chassis_serial
  LEFT JOIN latest l ON l.node_id = n.id
 WHERE e.po_id = $1
 GROUP BY e.model ORDER BY e.model)"};

}  // namespace inventory::detail
