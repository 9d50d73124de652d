// SQL of GPU health history (migrations/0008_gpu_health.sql): partitions, ingest, roll-ups,
// retention and reads.
#pragma once

#include "db.hpp"

// The roll-up columns shared by gpu_health_hourly and gpu_health_daily, in the order of the
// SELECT lists below.
#define INVENTORY_ROLLUP_COLUMNS                                                              \
  "gpu_serial, bucket, node_id, samples, temperature_n, temperature_sum, temperature_min,"    \
  " temperature_max, power_n, power_sum, power_min, power_max, sm_clock_n, sm_clock_sum,"     \
  " sm_clock_min, sm_clock_max, throttled_samples, clock_event_reasons, ecc_corrected_delta," \
  " ecc_uncorrected_delta, xid_count, healthy_samples, warning_samples, critical_samples,"    \
  " worst_class, hbm_temperature_n, hbm_temperature_sum, hbm_temperature_min,"                \
  " hbm_temperature_max, mem_clock_n, mem_clock_sum, mem_clock_min, mem_clock_max,"           \
  " utilization_n, utilization_sum, utilization_min, utilization_max, pcie_replay_delta"
// A recomputed bucket replaces what was there (idempotent re-runs).
#define INVENTORY_ROLLUP_REPLACE                                                                 \
  " ON CONFLICT (gpu_serial, bucket, node_id) DO UPDATE SET samples = excluded.samples,"         \
  " temperature_n = excluded.temperature_n, temperature_sum = excluded.temperature_sum,"         \
  " temperature_min = excluded.temperature_min, temperature_max = excluded.temperature_max,"     \
  " power_n = excluded.power_n, power_sum = excluded.power_sum, power_min = excluded.power_min," \
  " power_max = excluded.power_max, sm_clock_n = excluded.sm_clock_n,"                           \
  " sm_clock_sum = excluded.sm_clock_sum, sm_clock_min = excluded.sm_clock_min,"                 \
  " sm_clock_max = excluded.sm_clock_max, throttled_samples = excluded.throttled_samples,"       \
  " clock_event_reasons = excluded.clock_event_reasons,"                                         \
  " ecc_corrected_delta = excluded.ecc_corrected_delta,"                                         \
  " ecc_uncorrected_delta = excluded.ecc_uncorrected_delta, xid_count = excluded.xid_count,"     \
  " healthy_samples = excluded.healthy_samples, warning_samples = excluded.warning_samples,"     \
  " critical_samples = excluded.critical_samples, worst_class = excluded.worst_class,"           \
  " hbm_temperature_n = excluded.hbm_temperature_n,"                                             \
  " hbm_temperature_sum = excluded.hbm_temperature_sum,"                                         \
  " hbm_temperature_min = excluded.hbm_temperature_min,"                                         \
  " hbm_temperature_max = excluded.hbm_temperature_max, mem_clock_n = excluded.mem_clock_n,"     \
  " mem_clock_sum = excluded.mem_clock_sum, mem_clock_min = excluded.mem_clock_min,"             \
  " mem_clock_max = excluded.mem_clock_max, utilization_n = excluded.utilization_n,"             \
  " utilization_sum = excluded.utilization_sum, utilization_min = excluded.utilization_min,"     \
  " utilization_max = excluded.utilization_max, pcie_replay_delta = excluded.pcie_replay_delta"
// Summaries of roll-up rows, for the daily roll-up and the reads (alias h).
#define INVENTORY_ROLLUP_MERGE                                                            \
  "sum(h.samples), sum(h.temperature_n), sum(h.temperature_sum), min(h.temperature_min)," \
  " max(h.temperature_max), sum(h.power_n), sum(h.power_sum), min(h.power_min),"          \
  " max(h.power_max), sum(h.sm_clock_n), sum(h.sm_clock_sum), min(h.sm_clock_min),"       \
  " max(h.sm_clock_max), sum(h.throttled_samples), bit_or(h.clock_event_reasons),"        \
  " sum(h.ecc_corrected_delta), sum(h.ecc_uncorrected_delta), sum(h.xid_count),"          \
  " sum(h.healthy_samples), sum(h.warning_samples), sum(h.critical_samples),"             \
  " max(h.worst_class), sum(h.hbm_temperature_n), sum(h.hbm_temperature_sum),"            \
  " min(h.hbm_temperature_min), max(h.hbm_temperature_max), sum(h.mem_clock_n),"          \
  " sum(h.mem_clock_sum), min(h.mem_clock_min), max(h.mem_clock_max),"                    \
  " sum(h.utilization_n), sum(h.utilization_sum), min(h.utilization_min),"                \
  " max(h.utilization_max), sum(h.pcie_replay_delta)"
// Raw samples as one-reading roll-up rows (alias s), so every level reads alike.
#define INVENTORY_SAMPLE_AS_ROLLUP                                                                \
  "s.gpu_serial, s.node_id, 1 AS samples, (s.temperature_c IS NOT NULL)::int AS temperature_n,"   \
  " coalesce(s.temperature_c, 0)::float8 AS temperature_sum, s.temperature_c AS temperature_min," \
  " s.temperature_c AS temperature_max, (s.power_w IS NOT NULL)::int AS power_n,"                 \
  " coalesce(s.power_w, 0)::float8 AS power_sum, s.power_w AS power_min, s.power_w AS power_max," \
  " (s.sm_clock_mhz IS NOT NULL)::int AS sm_clock_n,"                                             \
  " coalesce(s.sm_clock_mhz, 0)::float8 AS sm_clock_sum, s.sm_clock_mhz AS sm_clock_min,"         \
  " s.sm_clock_mhz AS sm_clock_max, (s.clock_event_reasons <> 0)::int AS throttled_samples,"      \
  " s.clock_event_reasons, s.ecc_corrected_delta, s.ecc_uncorrected_delta, s.xid_count,"          \
  " (s.health_class = 0)::int AS healthy_samples, (s.health_class = 1)::int AS warning_samples,"  \
  " (s.health_class = 2)::int AS critical_samples, s.health_class AS worst_class,"                \
  " (s.hbm_temperature_c IS NOT NULL)::int AS hbm_temperature_n,"                                 \
  " coalesce(s.hbm_temperature_c, 0)::float8 AS hbm_temperature_sum,"                             \
  " s.hbm_temperature_c AS hbm_temperature_min, s.hbm_temperature_c AS hbm_temperature_max,"      \
  " (s.mem_clock_mhz IS NOT NULL)::int AS mem_clock_n,"                                           \
  " coalesce(s.mem_clock_mhz, 0)::float8 AS mem_clock_sum, s.mem_clock_mhz AS mem_clock_min,"     \
  " s.mem_clock_mhz AS mem_clock_max, (s.gpu_utilization_pct IS NOT NULL)::int AS utilization_n," \
  " coalesce(s.gpu_utilization_pct, 0)::float8 AS utilization_sum,"                               \
  " s.gpu_utilization_pct AS utilization_min, s.gpu_utilization_pct AS utilization_max,"          \
  " coalesce(s.pcie_replay_delta, 0) AS pcie_replay_delta"
#define INVENTORY_BUCKET_AS_ROLLUP                                                               \
  "h.gpu_serial, h.node_id, h.samples, h.temperature_n, h.temperature_sum, h.temperature_min,"   \
  " h.temperature_max, h.power_n, h.power_sum, h.power_min, h.power_max, h.sm_clock_n,"          \
  " h.sm_clock_sum, h.sm_clock_min, h.sm_clock_max, h.throttled_samples, h.clock_event_reasons," \
  " h.ecc_corrected_delta, h.ecc_uncorrected_delta, h.xid_count, h.healthy_samples,"             \
  " h.warning_samples, h.critical_samples, h.worst_class, h.hbm_temperature_n,"                  \
  " h.hbm_temperature_sum, h.hbm_temperature_min, h.hbm_temperature_max, h.mem_clock_n,"         \
  " h.mem_clock_sum, h.mem_clock_min, h.mem_clock_max, h.utilization_n, h.utilization_sum,"      \
  " h.utilization_min, h.utilization_max, h.pcie_replay_delta"

namespace inventory::detail {

// Partitions ---------------------------------------------------------------------------------

constexpr Query kMissingHealthPartitions{"missing_health_partitions", R"(
  SELECT n FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NULL)"};
constexpr Query kEnsureHealthPartition{"ensure_health_partition", R"(
  SELECT gpu_health_ensure_partition($1, $2, $3::timestamptz, $4::timestamptz))"};
constexpr Query kHealthPartitions{"health_partitions", R"(
  SELECT c.relname FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent
   WHERE p.relname = $1
   ORDER BY c.relname)"};
constexpr Query kDropHealthPartition{"drop_health_partition", R"(
  SELECT gpu_health_drop_partition($1, $2))"};

// Compaction (migrations/0021_health_compact.sql) ---------------------------------------------

// The hour a reading belongs to, whatever the session's time zone.
#define INVENTORY_HOUR_OF(t) "date_bin('1 hour', " t ", timestamptz '2000-01-01 00:00:00+00')"
// The raw readings of [$1, $2) (one day's partition) as one row per GPU, hour and node, merged
// into a row already there (readings that arrived after the day was compacted once).
constexpr Query kCompactHealthDay{"compact_gpu_health_day", R"(
  INSERT INTO gpu_health_compact AS c (gpu_serial, bucket, node_id, offsets,
    health_class, temperature_c, power_w, sm_clock_mhz,
    clock_event_reasons, ecc_corrected_volatile, ecc_uncorrected_volatile, ecc_corrected_aggregate,
    ecc_uncorrected_aggregate, remapped_correctable, remapped_uncorrectable, remap_pending,
    remap_failure, retired_pages, nvlink_crc_errors, nvlink_replay_errors,
    nvlink_recovery_errors, xid_count, ecc_corrected_delta, ecc_uncorrected_delta,
    source, hbm_temperature_c, mem_clock_mhz, gpu_utilization_pct,
    pcie_replay_errors, pcie_replay_delta, pcie_correctable_errors, pcie_nonfatal_errors,
    pcie_fatal_errors)
  SELECT gpu_serial, )" INVENTORY_HOUR_OF("sampled_at") R"(, node_id,
    array_agg(extract(epoch FROM sampled_at - )" INVENTORY_HOUR_OF("sampled_at") R"()::integer
              ORDER BY sampled_at),
    array_agg(health_class ORDER BY sampled_at), array_agg(temperature_c ORDER BY sampled_at),
    array_agg(power_w ORDER BY sampled_at), array_agg(sm_clock_mhz ORDER BY sampled_at),
    array_agg(clock_event_reasons ORDER BY sampled_at),
    array_agg(ecc_corrected_volatile ORDER BY sampled_at),
    array_agg(ecc_uncorrected_volatile ORDER BY sampled_at),
    array_agg(ecc_corrected_aggregate ORDER BY sampled_at),
    array_agg(ecc_uncorrected_aggregate ORDER BY sampled_at),
    array_agg(remapped_correctable ORDER BY sampled_at),
    array_agg(remapped_uncorrectable ORDER BY sampled_at),
    array_agg(remap_pending ORDER BY sampled_at),
    array_agg(remap_failure ORDER BY sampled_at), array_agg(retired_pages ORDER BY sampled_at),
    array_agg(nvlink_crc_errors ORDER BY sampled_at),
    array_agg(nvlink_replay_errors ORDER BY sampled_at),
    array_agg(nvlink_recovery_errors ORDER BY sampled_at), array_agg(xid_count ORDER BY sampled_at),
    array_agg(ecc_corrected_delta ORDER BY sampled_at),
    array_agg(ecc_uncorrected_delta ORDER BY sampled_at),
    array_agg(source ORDER BY sampled_at), array_agg(hbm_temperature_c ORDER BY sampled_at),
    array_agg(mem_clock_mhz ORDER BY sampled_at),
    array_agg(gpu_utilization_pct ORDER BY sampled_at),
    array_agg(pcie_replay_errors ORDER BY sampled_at),
    array_agg(pcie_replay_delta ORDER BY sampled_at),
    array_agg(pcie_correctable_errors ORDER BY sampled_at),
    array_agg(pcie_nonfatal_errors ORDER BY sampled_at),
    array_agg(pcie_fatal_errors ORDER BY sampled_at)
    FROM gpu_health_samples
   WHERE sampled_at >= $1::timestamptz AND sampled_at < $2::timestamptz
   GROUP BY 1, 2, 3
  ON CONFLICT (gpu_serial, bucket, node_id) DO UPDATE SET
    offsets = c.offsets || EXCLUDED.offsets,
    health_class = c.health_class || EXCLUDED.health_class,
    temperature_c = c.temperature_c || EXCLUDED.temperature_c,
    power_w = c.power_w || EXCLUDED.power_w,
    sm_clock_mhz = c.sm_clock_mhz || EXCLUDED.sm_clock_mhz,
    clock_event_reasons = c.clock_event_reasons || EXCLUDED.clock_event_reasons,
    ecc_corrected_volatile = c.ecc_corrected_volatile || EXCLUDED.ecc_corrected_volatile,
    ecc_uncorrected_volatile = c.ecc_uncorrected_volatile || EXCLUDED.ecc_uncorrected_volatile,
    ecc_corrected_aggregate = c.ecc_corrected_aggregate || EXCLUDED.ecc_corrected_aggregate,
    ecc_uncorrected_aggregate = c.ecc_uncorrected_aggregate || EXCLUDED.ecc_uncorrected_aggregate,
    remapped_correctable = c.remapped_correctable || EXCLUDED.remapped_correctable,
    remapped_uncorrectable = c.remapped_uncorrectable || EXCLUDED.remapped_uncorrectable,
    remap_pending = c.remap_pending || EXCLUDED.remap_pending,
    remap_failure = c.remap_failure || EXCLUDED.remap_failure,
    retired_pages = c.retired_pages || EXCLUDED.retired_pages,
    nvlink_crc_errors = c.nvlink_crc_errors || EXCLUDED.nvlink_crc_errors,
    nvlink_replay_errors = c.nvlink_replay_errors || EXCLUDED.nvlink_replay_errors,
    nvlink_recovery_errors = c.nvlink_recovery_errors || EXCLUDED.nvlink_recovery_errors,
    xid_count = c.xid_count || EXCLUDED.xid_count,
    ecc_corrected_delta = c.ecc_corrected_delta || EXCLUDED.ecc_corrected_delta,
    ecc_uncorrected_delta = c.ecc_uncorrected_delta || EXCLUDED.ecc_uncorrected_delta,
    source = c.source || EXCLUDED.source,
    hbm_temperature_c = c.hbm_temperature_c || EXCLUDED.hbm_temperature_c,
    mem_clock_mhz = c.mem_clock_mhz || EXCLUDED.mem_clock_mhz,
    gpu_utilization_pct = c.gpu_utilization_pct || EXCLUDED.gpu_utilization_pct,
    pcie_replay_errors = c.pcie_replay_errors || EXCLUDED.pcie_replay_errors,
    pcie_replay_delta = c.pcie_replay_delta || EXCLUDED.pcie_replay_delta,
    pcie_correctable_errors = c.pcie_correctable_errors || EXCLUDED.pcie_correctable_errors,
    pcie_nonfatal_errors = c.pcie_nonfatal_errors || EXCLUDED.pcie_nonfatal_errors,
    pcie_fatal_errors = c.pcie_fatal_errors || EXCLUDED.pcie_fatal_errors)"};
constexpr Query kCountHealthDay{"count_gpu_health_day", R"(
  SELECT count(*) FROM gpu_health_samples
   WHERE sampled_at >= $1::timestamptz AND sampled_at < $2::timestamptz)"};

// Ingest -------------------------------------------------------------------------------------

constexpr Query kHealthNodeExists{"health_node_exists", "SELECT 1 FROM nodes WHERE id = $1"};
// First readings get a placeholder row (last_sample NULL) so that the FOR UPDATE below locks
// every GPU of the batch, new or not. Serials come sorted: concurrent batches lock in one order.
constexpr Query kAddCounterStates{"add_gpu_counter_states", R"(
  INSERT INTO gpu_counter_state (gpu_serial, node_id)
  SELECT unnest($1::text[]), $2
  ON CONFLICT (gpu_serial) DO NOTHING)"};
constexpr Query kLockCounterStates{"lock_gpu_counter_states", R"(
  SELECT gpu_serial, node_id, extract(epoch FROM last_sample)::bigint, driver_epoch,
         last_raw::text, lifetime::text, resets, remap_pending, remap_failure
    FROM gpu_counter_state
   WHERE gpu_serial = ANY($1::text[])
   ORDER BY gpu_serial
     FOR UPDATE)"};
// The batch's rows as one JSON array each ($1): one statement per table, whatever the GPU count.
constexpr Query kUpdateCounterStates{"update_gpu_counter_states", R"(
  UPDATE gpu_counter_state s
     SET node_id = x.node_id, last_sample = x.last_sample, driver_epoch = x.driver_epoch,
         last_raw = x.last_raw, lifetime = x.lifetime, resets = x.resets,
         remap_pending = x.remap_pending, remap_failure = x.remap_failure, updated_at = now()
    FROM jsonb_to_recordset($1::jsonb) AS x(
           gpu_serial text, node_id bigint, last_sample timestamptz, driver_epoch text,
           last_raw jsonb, lifetime jsonb, resets integer, remap_pending boolean,
           remap_failure boolean)
   WHERE s.gpu_serial = x.gpu_serial)"};
constexpr Query kInsertHealthSamples{"insert_gpu_health_samples", R"(
  INSERT INTO gpu_health_samples (
    gpu_serial, sampled_at, node_id, health_class, temperature_c, power_w, sm_clock_mhz,
    clock_event_reasons, ecc_corrected_volatile, ecc_uncorrected_volatile,
    ecc_corrected_aggregate, ecc_uncorrected_aggregate, remapped_correctable,
    remapped_uncorrectable, retired_pages, nvlink_crc_errors, nvlink_replay_errors,
    nvlink_recovery_errors, remap_pending, remap_failure, xid_count, ecc_corrected_delta,
    ecc_uncorrected_delta, hbm_temperature_c, mem_clock_mhz, gpu_utilization_pct,
    pcie_replay_errors, pcie_replay_delta, pcie_correctable_errors, pcie_nonfatal_errors,
    pcie_fatal_errors)
  SELECT gpu_serial, sampled_at, node_id, health_class, temperature_c, power_w, sm_clock_mhz,
         clock_event_reasons, ecc_corrected_volatile, ecc_uncorrected_volatile,
         ecc_corrected_aggregate, ecc_uncorrected_aggregate, remapped_correctable,
         remapped_uncorrectable, retired_pages, nvlink_crc_errors, nvlink_replay_errors,
         nvlink_recovery_errors, remap_pending, remap_failure, xid_count, ecc_corrected_delta,
         ecc_uncorrected_delta, hbm_temperature_c, mem_clock_mhz, gpu_utilization_pct,
         pcie_replay_errors, pcie_replay_delta, pcie_correctable_errors, pcie_nonfatal_errors,
         pcie_fatal_errors
    FROM jsonb_to_recordset($1::jsonb) AS x(
           gpu_serial text, sampled_at timestamptz, node_id bigint, health_class smallint,
           temperature_c real, power_w real, sm_clock_mhz integer, clock_event_reasons bigint,
           ecc_corrected_volatile bigint, ecc_uncorrected_volatile bigint,
           ecc_corrected_aggregate bigint, ecc_uncorrected_aggregate bigint,
           remapped_correctable bigint, remapped_uncorrectable bigint, retired_pages bigint,
           nvlink_crc_errors bigint, nvlink_replay_errors bigint, nvlink_recovery_errors bigint,
           remap_pending boolean, remap_failure boolean, xid_count integer,
           ecc_corrected_delta bigint, ecc_uncorrected_delta bigint, hbm_temperature_c real,
           mem_clock_mhz integer, gpu_utilization_pct smallint, pcie_replay_errors bigint,
           pcie_replay_delta bigint, pcie_correctable_errors bigint,
           pcie_nonfatal_errors bigint, pcie_fatal_errors bigint))"};
constexpr Query kLatestXidBursts{"latest_gpu_xid_bursts", R"(
  SELECT DISTINCT ON (xid) id, xid, extract(epoch FROM first_at)::bigint,
         extract(epoch FROM last_at)::bigint, count
    FROM gpu_xid_bursts
   WHERE gpu_serial = $1
   ORDER BY xid, last_at DESC)"};
constexpr Query kExtendXidBurst{"extend_gpu_xid_burst", R"(
  UPDATE gpu_xid_bursts SET first_at = $2::timestamptz, last_at = $3::timestamptz, count = $4
   WHERE id = $1)"};
constexpr Query kOpenXidBurst{"open_gpu_xid_burst", R"(
  INSERT INTO gpu_xid_bursts (gpu_serial, xid, node_id, first_at, last_at, count)
  VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, $6)
  RETURNING id)"};
// Ids follow the batch's order (ord): a timeline at one instant reads as it was derived.
constexpr Query kInsertHealthEvents{"insert_gpu_health_events", R"(
  INSERT INTO gpu_health_events (gpu_serial, kind, at, node_id, detail)
  SELECT gpu_serial, kind, at, node_id, detail
    FROM jsonb_to_recordset($1::jsonb) AS x(
           ord integer, gpu_serial text, kind text, at timestamptz, node_id bigint, detail jsonb)
   ORDER BY ord)"};
// DO UPDATE (not NOTHING) takes the mark's row lock, so a roll-up taking the mark waits for
// this batch to commit and then sees its readings.
constexpr Query kMarkRollupDue{"mark_gpu_health_rollup_due", R"(
  INSERT INTO gpu_health_rollup_due (level, bucket, node_id)
  SELECT $1, b, n FROM unnest($2::timestamptz[], $3::bigint[]) AS d(b, n)
  ON CONFLICT (level, bucket, node_id) DO UPDATE SET marked_at = now())"};

// Roll-ups -----------------------------------------------------------------------------------

constexpr Query kTakeRollupDue{"take_gpu_health_rollup_due", R"(
  DELETE FROM gpu_health_rollup_due
   WHERE level = $1 AND bucket + $2::interval <= $3::timestamptz
  RETURNING iso8601(bucket), node_id)"};
constexpr Query kRollUpHours{
    "roll_up_gpu_health_hours",
    "INSERT INTO gpu_health_hourly (" INVENTORY_ROLLUP_COLUMNS
    ")"
    " SELECT h.gpu_serial, d.bucket, h.node_id, " INVENTORY_ROLLUP_MERGE
    " FROM unnest($1::timestamptz[], $2::bigint[]) AS d(bucket, node_id)"
    " CROSS JOIN LATERAL (SELECT " INVENTORY_SAMPLE_AS_ROLLUP
    "   FROM gpu_health_readings s WHERE s.node_id = d.node_id AND s.bucket = d.bucket"
    "    AND s.sampled_at >= d.bucket"
    "    AND s.sampled_at < d.bucket + interval '1 hour') h"
    " GROUP BY h.gpu_serial, d.bucket, h.node_id" INVENTORY_ROLLUP_REPLACE};
constexpr Query kRollUpDays{"roll_up_gpu_health_days",
                            "INSERT INTO gpu_health_daily (" INVENTORY_ROLLUP_COLUMNS
                            ")"
                            " SELECT h.gpu_serial, d.bucket, h.node_id, " INVENTORY_ROLLUP_MERGE
                            " FROM unnest($1::timestamptz[], $2::bigint[]) AS d(bucket, node_id)"
                            " JOIN gpu_health_hourly h ON h.node_id = d.node_id"
                            "  AND h.bucket >= d.bucket AND h.bucket < d.bucket + interval '1 day'"
                            " GROUP BY h.gpu_serial, d.bucket, h.node_id" INVENTORY_ROLLUP_REPLACE};

// Reads --------------------------------------------------------------------------------------

// One GPU's points in [$2, $3): the columns pointFromRow() reads.
#define INVENTORY_POINT_SELECT(source)                                                        \
  "SELECT iso8601(h.at), h.node_id, h.samples, h.temperature_n, h.temperature_sum,"           \
  " h.temperature_min, h.temperature_max, h.power_n, h.power_sum, h.power_min, h.power_max,"  \
  " h.sm_clock_n, h.sm_clock_sum, h.sm_clock_min, h.sm_clock_max, h.throttled_samples,"       \
  " h.clock_event_reasons, h.ecc_corrected_delta, h.ecc_uncorrected_delta, h.xid_count,"      \
  " h.worst_class, h.source, h.hbm_temperature_n, h.hbm_temperature_sum,"                     \
  " h.hbm_temperature_min, h.hbm_temperature_max, h.mem_clock_n, h.mem_clock_sum,"            \
  " h.mem_clock_min, h.mem_clock_max, h.utilization_n, h.utilization_sum, h.utilization_min," \
  " h.utilization_max, h.pcie_replay_delta, h.pcie_replay_errors"                             \
  " FROM (" source ") h ORDER BY h.at, h.node_id"
constexpr Query kRawPoints{
    "gpu_health_raw_points",
    INVENTORY_POINT_SELECT("SELECT s.sampled_at AS at, s.source, " INVENTORY_SAMPLE_AS_ROLLUP
                           ", s.pcie_replay_errors"
                           " FROM gpu_health_readings s"
                           " WHERE s.gpu_serial = $1"
                           " AND s.bucket >= " INVENTORY_HOUR_OF(
                               "$2::timestamptz") " AND s.bucket < $3::timestamptz"
                                                  " AND s.sampled_at >= $2::timestamptz"
                                                  " AND s.sampled_at < $3::timestamptz")};
constexpr Query kHourlyPoints{
    "gpu_health_hourly_points",
    INVENTORY_POINT_SELECT(
        "SELECT h.bucket AS at, NULL::text AS source, " INVENTORY_BUCKET_AS_ROLLUP
        ", NULL::bigint AS pcie_replay_errors FROM gpu_health_hourly h"
        " WHERE h.gpu_serial = $1"
        " AND h.bucket >= $2::timestamptz"
        " AND h.bucket < $3::timestamptz")};
constexpr Query kDailyPoints{
    "gpu_health_daily_points",
    INVENTORY_POINT_SELECT(
        "SELECT h.bucket AS at, NULL::text AS source, " INVENTORY_BUCKET_AS_ROLLUP
        ", NULL::bigint AS pcie_replay_errors FROM gpu_health_daily h"
        " WHERE h.gpu_serial = $1"
        " AND h.bucket >= $2::timestamptz"
        " AND h.bucket < $3::timestamptz")};
constexpr Query kGpuHealthEvents{"gpu_health_events_in_range", R"(
  SELECT id, kind, iso8601(at), node_id, detail::text FROM gpu_health_events
   WHERE gpu_serial = $1 AND at >= $2::timestamptz AND at < $3::timestamptz
   ORDER BY at, id)"};
constexpr Query kGpuXidBursts{"gpu_xid_bursts_in_range", R"(
  SELECT id, xid, node_id, iso8601(first_at), iso8601(last_at), count FROM gpu_xid_bursts
   WHERE gpu_serial = $1 AND last_at >= $2::timestamptz AND first_at < $3::timestamptz
   ORDER BY first_at, id)"};
constexpr Query kGpuCounterTotals{"gpu_counter_totals", R"(
  SELECT node_id, iso8601(last_sample), driver_epoch, resets, lifetime::text, last_raw::text
    FROM gpu_counter_state WHERE gpu_serial = $1 AND last_sample IS NOT NULL)"};
constexpr Query kGpuHasHealth{"gpu_has_health", R"(
  SELECT EXISTS (SELECT 1 FROM gpu_counter_state WHERE gpu_serial = $1)
      OR EXISTS (SELECT 1 FROM gpu_health_events WHERE gpu_serial = $1))"};

// Readings of [$1, $2) grouped by $3 (node, rack, row, site): GPUs are summarised per group
// first, so a GPU counts once per group with its worst class.
#define INVENTORY_GROUP_ROLLUP(source)                                                      \
  "WITH src AS (" source                                                                    \
  "), placed AS ("                                                                          \
  " SELECT src.*, coalesce(st.name, '') AS site, coalesce(rw.name, '') AS row_name,"        \
  "  coalesce(r.name, '') AS rack FROM src JOIN nodes n ON n.id = src.node_id"              \
  "  LEFT JOIN racks r ON r.id = n.rack_id LEFT JOIN sites st ON st.id = r.site_id"         \
  "  LEFT JOIN rows rw ON rw.id = r.row_id), per_gpu AS ("                                  \
  " SELECT p.site, CASE WHEN $3 <> 'site' THEN p.row_name ELSE '' END AS row_name,"         \
  "  CASE WHEN $3 IN ('node', 'rack') THEN p.rack ELSE '' END AS rack,"                     \
  "  CASE WHEN $3 = 'node' THEN p.node_id END AS node_id, p.gpu_serial,"                    \
  "  sum(p.samples) AS samples, sum(p.temperature_n) AS tn, sum(p.temperature_sum) AS ts,"  \
  "  min(p.temperature_min) AS tmin, max(p.temperature_max) AS tmax, sum(p.power_n) AS pn," \
  "  sum(p.power_sum) AS ps, min(p.power_min) AS pmin, max(p.power_max) AS pmax,"           \
  "  sum(p.sm_clock_n) AS cn, sum(p.sm_clock_sum) AS cs, min(p.sm_clock_min) AS cmin,"      \
  "  max(p.sm_clock_max) AS cmax, sum(p.throttled_samples) AS th,"                          \
  "  sum(p.ecc_corrected_delta) AS ec, sum(p.ecc_uncorrected_delta) AS eu,"                 \
  "  sum(p.xid_count) AS x, max(p.worst_class) AS worst,"                                   \
  "  sum(p.hbm_temperature_n) AS hn, sum(p.hbm_temperature_sum) AS hs,"                     \
  "  min(p.hbm_temperature_min) AS hmin, max(p.hbm_temperature_max) AS hmax,"               \
  "  sum(p.utilization_n) AS un, sum(p.utilization_sum) AS us,"                             \
  "  min(p.utilization_min) AS umin, max(p.utilization_max) AS umax,"                       \
  "  sum(p.pcie_replay_delta) AS pr"                                                        \
  "  FROM placed p GROUP BY 1, 2, 3, 4, p.gpu_serial)"                                      \
  " SELECT g.site, g.row_name, g.rack, g.node_id, count(*), sum(g.samples), sum(g.tn),"     \
  "  sum(g.ts), min(g.tmin), max(g.tmax), sum(g.pn), sum(g.ps), min(g.pmin), max(g.pmax),"  \
  "  sum(g.cn), sum(g.cs), min(g.cmin), max(g.cmax), sum(g.th), sum(g.ec), sum(g.eu),"      \
  "  sum(g.x), count(*) FILTER (WHERE g.worst = 0), count(*) FILTER (WHERE g.worst = 1),"   \
  "  count(*) FILTER (WHERE g.worst = 2), sum(g.hn), sum(g.hs), min(g.hmin), max(g.hmax),"  \
  "  sum(g.un), sum(g.us), min(g.umin), max(g.umax), sum(g.pr)"                             \
  " FROM per_gpu g GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
// Readings of [$1, $2) at full resolution, without scanning them all: the whole hours [$4, $5)
// from their hourly roll-ups, except the (hour, node) buckets still due (a reading came after
// the roll-up, or the hour is not closed yet), which are read raw, as are the partial hours at
// the edges [$1, $4) and [$5, $2). Due marks and roll-ups change in one transaction, so this one
// statement counts every reading once.
constexpr Query kRawGroupRollups{
    "gpu_health_raw_group_rollups",
    INVENTORY_GROUP_ROLLUP(
        "SELECT " INVENTORY_BUCKET_AS_ROLLUP " FROM gpu_health_hourly h"
        " WHERE h.bucket >= $4::timestamptz AND h.bucket < $5::timestamptz"
        " AND NOT EXISTS (SELECT 1 FROM gpu_health_rollup_due d WHERE d.level = 'hourly'"
        "  AND d.bucket = h.bucket AND d.node_id = h.node_id)"
        " UNION ALL SELECT " INVENTORY_SAMPLE_AS_ROLLUP
        " FROM gpu_health_rollup_due d JOIN gpu_health_readings s ON s.node_id = d.node_id"
        "  AND s.bucket = d.bucket AND s.sampled_at >= d.bucket"
        "  AND s.sampled_at < d.bucket + interval '1 hour'"
        " WHERE d.level = 'hourly' AND d.bucket >= $4::timestamptz AND d.bucket < $5::timestamptz"
        " UNION ALL SELECT " INVENTORY_SAMPLE_AS_ROLLUP " FROM gpu_health_readings s"
        " WHERE s.bucket >= " INVENTORY_HOUR_OF(
            "$1::timestamptz") " AND s.bucket < $4::timestamptz"
                               " AND s.sampled_at >= $1::timestamptz AND s.sampled_at < "
                               "$4::timestamptz"
                               " UNION ALL SELECT " INVENTORY_SAMPLE_AS_ROLLUP
                               " FROM gpu_health_readings s"
                               " WHERE s.bucket >= $5::timestamptz AND s.bucket < $2::timestamptz"
                               " AND s.sampled_at >= $5::timestamptz AND s.sampled_at < "
                               "$2::timestamptz")};
constexpr Query kHourlyGroupRollups{
    "gpu_health_hourly_group_rollups",
    INVENTORY_GROUP_ROLLUP("SELECT " INVENTORY_BUCKET_AS_ROLLUP " FROM gpu_health_hourly h"
                           " WHERE h.bucket >= $1::timestamptz AND h.bucket < $2::timestamptz")};
constexpr Query kDailyGroupRollups{
    "gpu_health_daily_group_rollups",
    INVENTORY_GROUP_ROLLUP("SELECT " INVENTORY_BUCKET_AS_ROLLUP " FROM gpu_health_daily h"
                           " WHERE h.bucket >= $1::timestamptz AND h.bucket < $2::timestamptz")};

}  // namespace inventory::detail
