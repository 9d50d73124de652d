// SQL of component reports: parts, their placements and firmware, all history-preserving.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kSelectOpenPlacementsOfNode{"select_open_placements_of_node", R"(
  SELECT p.id, c.id, c.serial, c.kind, p.slot
    FROM component_placements p JOIN components c ON c.id = p.component_id
   WHERE p.node_id = $1 AND p.removed_at IS NULL
   ORDER BY p.id)"};
// The part (locked) and where it is installed now, if anywhere.
constexpr Query kSelectComponentForUpdate{"select_component_for_update", R"(
  SELECT c.id, c.firmware_version, p.id, p.node_id, p.slot, n.chassis_serial
    FROM components c
    LEFT JOIN component_placements p ON p.component_id = c.id AND p.removed_at IS NULL
    LEFT JOIN nodes n ON n.id = p.node_id
   WHERE c.serial = $1
     FOR UPDATE OF c)"};
constexpr Query kInsertComponent{"insert_component", R"(
  INSERT INTO components (serial, kind, manufacturer, model, part_number, firmware_version)
  VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)"};
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
