// SQL of the out-of-band health sweep (migrations/0016_health_sweep.sql).
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kListHealthSweepNodes{"list_health_sweep_nodes", R"(
  SELECT n.id, n.state, extract(epoch FROM r.last_reading)::bigint,
         extract(epoch FROM s.attempted_at)::bigint, extract(epoch FROM s.swept_at)::bigint,
         coalesce(s.reachable, true)
    FROM nodes n
    LEFT JOIN (SELECT node_id, max(last_sample) AS last_reading
                 FROM gpu_counter_state GROUP BY node_id) r ON r.node_id = n.id
    LEFT JOIN node_health_sweeps s ON s.node_id = n.id
   WHERE n.state = ANY($1::text[])
   ORDER BY n.id)"};

constexpr Query kListPlacedGpuReadings{"list_placed_gpu_readings", R"(
  SELECT p.node_id, c.serial, extract(epoch FROM g.last_sample)::bigint
    FROM component_placements p
    JOIN components c ON c.id = p.component_id AND c.kind = 'gpu'
    JOIN nodes n ON n.id = p.node_id AND n.state = ANY($1::text[])
    LEFT JOIN gpu_counter_state g ON g.gpu_serial = c.serial AND g.node_id = p.node_id
   WHERE p.removed_at IS NULL
   ORDER BY p.node_id, c.serial)"};

constexpr Query kHealthSweepNodeExists{"health_sweep_node_exists",
                                       "SELECT 1 FROM nodes WHERE id = $1"};

// A BMC reading: no counter deltas (its lifetime counts are not the agent's reset-corrected
// ones), and an instant the GPU already has a reading at keeps the one it has.
constexpr Query kInsertBmcHealthSamples{"insert_bmc_health_samples", R"(
  WITH ins AS (
    INSERT INTO gpu_health_samples (
      gpu_serial, sampled_at, node_id, health_class, temperature_c, power_w,
      ecc_corrected_aggregate, ecc_uncorrected_aggregate, remapped_correctable,
      remapped_uncorrectable, remap_pending, remap_failure, hbm_temperature_c,
      pcie_replay_errors, pcie_correctable_errors, pcie_nonfatal_errors, pcie_fatal_errors,
      source)
    SELECT gpu_serial, sampled_at, node_id, health_class, temperature_c, power_w,
           ecc_corrected_aggregate, ecc_uncorrected_aggregate, remapped_correctable,
           remapped_uncorrectable, remap_pending, remap_failure, hbm_temperature_c,
           pcie_replay_errors, pcie_correctable_errors, pcie_nonfatal_errors, pcie_fatal_errors,
           'bmc'
      FROM jsonb_to_recordset($1::jsonb) AS x(
             gpu_serial text, sampled_at timestamptz, node_id bigint, health_class smallint,
             temperature_c real, power_w real, ecc_corrected_aggregate bigint,
             ecc_uncorrected_aggregate bigint, remapped_correctable bigint,
             remapped_uncorrectable bigint, remap_pending boolean, remap_failure boolean,
             hbm_temperature_c real, pcie_replay_errors bigint, pcie_correctable_errors bigint,
             pcie_nonfatal_errors bigint, pcie_fatal_errors bigint)
    ON CONFLICT (gpu_serial, sampled_at) DO NOTHING
    RETURNING 1)
  SELECT count(*) FROM ins)"};

constexpr Query kRecordHealthSweep{"record_health_sweep", R"(
  INSERT INTO node_health_sweeps (node_id, attempted_at, swept_at, reachable, gpus, error)
  VALUES ($1, $2::timestamptz, CASE WHEN $3 THEN $2::timestamptz END, $3, $4, $5)
  ON CONFLICT (node_id) DO UPDATE
     SET attempted_at = excluded.attempted_at,
         swept_at = coalesce(excluded.swept_at, node_health_sweeps.swept_at),
         reachable = excluded.reachable, gpus = excluded.gpus, error = excluded.error)"};

constexpr Query kListHealthSweeps{"list_health_sweeps", R"(
  SELECT s.node_id, n.state, iso8601(s.attempted_at), iso8601(s.swept_at), s.reachable, s.gpus,
         s.error,
         (SELECT iso8601(max(g.last_sample)) FROM gpu_counter_state g WHERE g.node_id = s.node_id)
    FROM node_health_sweeps s
    JOIN nodes n ON n.id = s.node_id
   WHERE s.node_id > $1 AND ($2::boolean IS NULL OR s.reachable = $2::boolean)
   ORDER BY s.node_id
   LIMIT $3)"};

}  // namespace inventory::detail
