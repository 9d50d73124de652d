// SQL of component reports: parts, their placements and firmware, all history-preserving.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kSelectOpenPlacementsOfNode{"select_open_placements_of_node", R"(
  SELECT p.id, c.id, c.serial, c.kind, p.slot
    FROM component_placements p JOIN components c ON c.id = p.component_id
   WHERE p.node_id = $1 AND p.removed_at IS NULL
   ORDER BY p.id)"};
// The parts of a report ($1: JSON array of serials), locked, and where each is installed now,
// if anywhere; in serial order so concurrent reports lock rows in one order. Column 6: serial.
constexpr Query kSelectComponentsForUpdate{"select_components_for_update", R"(
  SELECT c.id, c.firmware_version, p.id, p.node_id, p.slot, n.chassis_serial, c.serial
    FROM components c
    LEFT JOIN component_placements p ON p.component_id = c.id AND p.removed_at IS NULL
    LEFT JOIN nodes n ON n.id = p.node_id
   WHERE c.serial IN (SELECT jsonb_array_elements_text($1::jsonb))
   ORDER BY c.serial
     FOR UPDATE OF c)"};
// Parts never seen before, all in one round trip: the part, its first firmware record, its
// placement in node $1 and a component_installed event by actor $3. $2: JSON array of
// {serial, kind, manufacturer, model, part_number, firmware_version, slot}.
constexpr Query kInstallNewComponents{"install_new_components", R"(
  WITH input AS (
    SELECT t.*, row_number() OVER () AS ord
      FROM jsonb_to_recordset($2::jsonb) AS t(serial text, kind text, manufacturer text,
                                             model text, part_number text,
                                             firmware_version text, slot text)),
  parts AS (
    INSERT INTO components (serial, kind, manufacturer, model, part_number, firmware_version)
    SELECT serial, kind, manufacturer, model, part_number, firmware_version FROM input
     ORDER BY ord
    RETURNING id, serial, firmware_version),
  firmware AS (
    INSERT INTO component_firmware (component_id, node_id, version)
    SELECT id, $1, firmware_version FROM parts WHERE firmware_version <> ''),
  placements AS (
    INSERT INTO component_placements (component_id, node_id, slot)
    SELECT parts.id, $1, input.slot FROM parts JOIN input USING (serial))
  INSERT INTO node_events (node_id, actor, kind, message, detail)
  SELECT $1, $3, 'component_installed',
         kind || ' ' || serial || ' installed in ' || slot,
         jsonb_build_object('serial', serial, 'kind', kind, 'slot', slot)
    FROM input ORDER BY ord)"};
// Refreshes what the report says about the part; empty values keep what is known. Writes
// nothing when nothing differs, so an unchanged report stays a no-op.
constexpr Query kUpdateComponentFacts{"update_component_facts", R"(
  UPDATE components
     SET kind = $2,
         manufacturer = coalesce(nullif($3, ''), manufacturer),
         model = coalesce(nullif($4, ''), model),
         part_number = coalesce(nullif($5, ''), part_number)
   WHERE id = $1
     AND (kind <> $2 OR ($3 <> '' AND manufacturer <> $3) OR ($4 <> '' AND model <> $4)
          OR ($5 <> '' AND part_number <> $5)))"};
constexpr Query kSetComponentFirmware{"set_component_firmware",
                                      "UPDATE components SET firmware_version = $2 WHERE id = $1"};
constexpr Query kInsertFirmware{"insert_firmware",
                                "INSERT INTO component_firmware (component_id, node_id, version) "
                                "VALUES ($1, $2, $3)"};
constexpr Query kInsertPlacement{"insert_placement",
                                 "INSERT INTO component_placements (component_id, node_id, slot) "
                                 "VALUES ($1, $2, $3)"};
constexpr Query kClosePlacement{"close_placement", R"(
  UPDATE component_placements
     SET removed_at = now(), removal_reason = $2, rma_ticket = nullif($3, '')
   WHERE id = $1)"};

}  // namespace inventory::detail
