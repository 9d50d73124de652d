// SQL of GPU health flags (migrations/0009_gpu_flags.sql) and of the evidence the health rules
// evaluate (daily roll-ups, counter state, XID bursts, remaps, past flags, peer groups).
#pragma once

#include "db.hpp"

#define INVENTORY_FLAG_COLUMNS                                                            \
  "id, gpu_serial, rule, severity, action, state, reason, evidence::text, node_id,"       \
  " iso8601(evidence_at), iso8601(raised_at), iso8601(acknowledged_at), acknowledged_by," \
  " acknowledge_note, iso8601(cleared_at), cleared_by, clear_note, iso8601(action_at),"   \
  " action_run_id, iso8601(released_at)"

namespace inventory::detail {

// $1 serial, $2 rule, $3 severity, $4 action, $5 reason, $6 evidence, $7 evidence time, $8 now.
// Nothing when a flag of the GPU and rule is open, or one was cleared at or after $7.
constexpr Query kRaiseFlag{"raise_gpu_flag", R"(
  WITH ins AS (
    INSERT INTO gpu_flags (gpu_serial, rule, severity, action, reason, evidence, node_id,
                           evidence_at, raised_at)
    SELECT $1, $2, $3, $4, $5, $6::jsonb,
           COALESCE(NULLIF($9::bigint, 0),
                    (SELECT node_id FROM gpu_counter_state WHERE gpu_serial = $1)),
           $7::timestamptz, $8::timestamptz
     WHERE NOT EXISTS (SELECT 1 FROM gpu_flags c
                        WHERE c.gpu_serial = $1 AND c.rule = $2 AND c.state = 'cleared'
                          AND c.cleared_at >= $7::timestamptz)
    ON CONFLICT (gpu_serial, rule) WHERE state <> 'cleared' DO NOTHING
    RETURNING *
  ), ev AS (
    INSERT INTO gpu_health_events (gpu_serial, kind, at, node_id, detail)
    SELECT gpu_serial, 'flag_raised', raised_at, node_id,
           jsonb_build_object('flag_id', id, 'rule', rule, 'severity', severity,
                              'action', action, 'reason', reason)
      FROM ins
  )
  SELECT )" INVENTORY_FLAG_COLUMNS R"( FROM ins)"};
constexpr Query kFlagSuppressed{"gpu_flag_suppressed", R"(
  SELECT EXISTS (SELECT 1 FROM gpu_flags c
                  WHERE c.gpu_serial = $1 AND c.rule = $2 AND c.state = 'cleared'
                    AND c.cleared_at >= $3::timestamptz))"};

constexpr Query kLockFlag{"lock_gpu_flag", "SELECT state FROM gpu_flags WHERE id = $1 FOR UPDATE"};
constexpr Query kAcknowledgeFlag{"acknowledge_gpu_flag", R"(
  UPDATE gpu_flags SET state = 'acknowledged', acknowledged_at = $2::timestamptz,
                       acknowledged_by = $3, acknowledge_note = $4
   WHERE id = $1 AND state = 'open')"};
constexpr Query kClearFlag{"clear_gpu_flag", R"(
  UPDATE gpu_flags SET state = 'cleared', cleared_at = $2::timestamptz, cleared_by = $3,
                       clear_note = $4
   WHERE id = $1 AND state <> 'cleared')"};
// $1 flag id, $2 kind, $3 now, $4 who, $5 note.
constexpr Query kFlagEvent{"gpu_flag_event", R"(
  INSERT INTO gpu_health_events (gpu_serial, kind, at, node_id, detail)
  SELECT f.gpu_serial, $2::text, $3::timestamptz, coalesce(s.node_id, f.node_id),
         jsonb_build_object('flag_id', f.id, 'rule', f.rule, 'by', $4::text, 'note', $5::text)
    FROM gpu_flags f LEFT JOIN gpu_counter_state s ON s.gpu_serial = f.gpu_serial
   WHERE f.id = $1)"};
constexpr Query kFlagActionStarted{"gpu_flag_action_started", R"(
  UPDATE gpu_flags SET action_at = $2::timestamptz, action_run_id = $3
   WHERE id = $1 AND action_at IS NULL AND state = 'open')"};

// Cleared flags that drained their node and whose hold is not released yet.
constexpr Query kFlagsToRelease{"gpu_flags_to_release", "SELECT " INVENTORY_FLAG_COLUMNS R"(
    FROM gpu_flags
   WHERE state = 'cleared' AND action_at IS NOT NULL AND released_at IS NULL
     AND action IN ('drain', 'rma_candidate', 'reset_at_idle', 'rerun_burn_in') AND node_id IS NOT NULL
   ORDER BY id LIMIT 1000)"};
// The other flags that hold node $1 drained: their drain started and nobody cleared them. The
// actions are those of workflows::actionDrainsNode.
constexpr Query kFlagsHoldingNode{"gpu_flags_holding_node", R"(
  SELECT id FROM gpu_flags
   WHERE node_id = $1 AND id <> $2 AND state <> 'cleared' AND action_at IS NOT NULL
     AND action IN ('drain', 'rma_candidate', 'reset_at_idle', 'rerun_burn_in')
   ORDER BY id)"};
constexpr Query kFlagReleased{"gpu_flag_released", R"(
  UPDATE gpu_flags SET released_at = $2::timestamptz, release_run_id = $3
   WHERE id = $1 AND state = 'cleared' AND released_at IS NULL)"};

constexpr Query kGetFlag{"get_gpu_flag",
                         "SELECT " INVENTORY_FLAG_COLUMNS " FROM gpu_flags WHERE id = $1"};
// $1 serial, $2 node, $3 state, $4 rule, $5 severity (each NULL: any), $6 after id, $7 limit.
constexpr Query kListFlags{"list_gpu_flags", "SELECT " INVENTORY_FLAG_COLUMNS R"(
    FROM gpu_flags
   WHERE ($1::text IS NULL OR gpu_serial = $1) AND ($2::bigint IS NULL OR node_id = $2)
     AND ($3::text IS NULL OR state = $3) AND ($4::text IS NULL OR rule = $4)
     AND ($5::text IS NULL OR severity = $5) AND id > $6
   ORDER BY id LIMIT $7)"};

// Evidence for an evaluation: $1 GPUs with a reading since, $2 lookback start, $3 today (the
// first instant not complete). Times as epoch seconds.
#define INVENTORY_FLAG_GPUS \
  " (SELECT gpu_serial FROM gpu_counter_state WHERE last_sample >= $1::timestamptz) "
constexpr Query kFlagGpus{"flag_eval_gpus", R"(
  SELECT gpu_serial, node_id, extract(epoch FROM last_sample)::bigint, remap_pending,
         remap_failure
    FROM gpu_counter_state WHERE last_sample >= $1::timestamptz
   ORDER BY gpu_serial)"};
constexpr Query kFlagDays{"flag_eval_days", R"(
  SELECT gpu_serial, extract(epoch FROM bucket)::bigint, sum(samples), sum(temperature_n),
         sum(temperature_sum), min(temperature_min), max(temperature_max), sum(power_n),
         sum(power_sum), min(power_min), max(power_max), sum(sm_clock_n), sum(sm_clock_sum),
         min(sm_clock_min), max(sm_clock_max), sum(throttled_samples), sum(ecc_corrected_delta),
         sum(ecc_uncorrected_delta), sum(xid_count), sum(pcie_replay_delta),
         sum(hbm_temperature_n), sum(hbm_temperature_sum), min(hbm_temperature_min),
         max(hbm_temperature_max), sum(mem_clock_n), sum(mem_clock_sum), min(mem_clock_min),
         max(mem_clock_max), sum(utilization_n), sum(utilization_sum), min(utilization_min),
         max(utilization_max)
    FROM gpu_health_daily
   WHERE gpu_serial IN )" INVENTORY_FLAG_GPUS R"(
     AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
   GROUP BY gpu_serial, bucket ORDER BY gpu_serial, bucket)"};
constexpr Query kFlagBursts{"flag_eval_bursts", R"(
  SELECT gpu_serial, xid, extract(epoch FROM first_at)::bigint,
         extract(epoch FROM last_at)::bigint, count
    FROM gpu_xid_bursts
   WHERE gpu_serial IN )" INVENTORY_FLAG_GPUS R"( AND last_at >= $2::timestamptz
   ORDER BY gpu_serial, first_at)"};
// Hours with new PCIe replays from $2 on (the rate rule's day).
constexpr Query kFlagHourReplays{"flag_eval_hour_replays", R"(
  SELECT gpu_serial, extract(epoch FROM bucket)::bigint, sum(pcie_replay_delta)
    FROM gpu_health_hourly
   WHERE gpu_serial IN )" INVENTORY_FLAG_GPUS R"( AND bucket >= $2::timestamptz
     AND pcie_replay_delta > 0
   GROUP BY gpu_serial, bucket ORDER BY gpu_serial, bucket)"};
constexpr Query kFlagRemaps{"flag_eval_remaps", R"(
  SELECT gpu_serial, extract(epoch FROM at)::bigint,
         coalesce((detail->>'remapped_correctable')::bigint, 0)
           + coalesce((detail->>'remapped_uncorrectable')::bigint, 0)
    FROM gpu_health_events
   WHERE kind = 'rows_remapped' AND gpu_serial IN )" INVENTORY_FLAG_GPUS R"(
     AND at >= $2::timestamptz
   ORDER BY gpu_serial, at)"};
constexpr Query kFlagPast{"flag_eval_past_flags", R"(
  SELECT gpu_serial, rule, extract(epoch FROM evidence_at)::bigint
    FROM gpu_flags
   WHERE gpu_serial IN )" INVENTORY_FLAG_GPUS R"( AND evidence_at >= $2::timestamptz
   ORDER BY gpu_serial, evidence_at)"};
// Peer groups: every GPU now in a rack where a GPU with new data is, by (rack, GPU model), with
// its daily means over [$2, $3).
constexpr Query kFlagPeers{"flag_eval_peers", R"(
  SELECT n.rack_id, coalesce(c.model, ''), r.name, d.gpu_serial,
         extract(epoch FROM d.bucket)::bigint, sum(d.samples),
         sum(d.temperature_sum) / nullif(sum(d.temperature_n), 0),
         sum(d.sm_clock_sum) / nullif(sum(d.sm_clock_n), 0),
         sum(d.power_sum) / nullif(sum(d.power_n), 0)
    FROM gpu_health_daily d
    JOIN gpu_counter_state s ON s.gpu_serial = d.gpu_serial
    JOIN nodes n ON n.id = s.node_id
    JOIN racks r ON r.id = n.rack_id
    LEFT JOIN components c ON c.serial = d.gpu_serial
   WHERE d.bucket >= $2::timestamptz AND d.bucket < $3::timestamptz
     AND n.rack_id IN (SELECT n2.rack_id FROM gpu_counter_state s2
                         JOIN nodes n2 ON n2.id = s2.node_id
                        WHERE s2.last_sample >= $1::timestamptz AND n2.rack_id IS NOT NULL)
   GROUP BY n.rack_id, coalesce(c.model, ''), r.name, d.gpu_serial, d.bucket
   ORDER BY n.rack_id, coalesce(c.model, ''), d.bucket, d.gpu_serial)"};

}  // namespace inventory::detail
