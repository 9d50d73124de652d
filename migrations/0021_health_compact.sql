-- Compact raw health history (docs/health.md, "Storage"): once a day's raw partition is more than a
-- day old, its readings move into one row per GPU, hour and node whose columns are arrays (one
-- element per reading, in the same order as `offsets`), and the raw partition is dropped, in one
-- transaction. PostgreSQL compresses the long arrays (TOAST): counters that do not move cost almost
-- nothing, so a field sample costs a byte or two instead of the 10+ of a plain row with its
-- indexes. Partitioned by day like the raw table, so retention drops whole partitions.
CREATE TABLE gpu_health_compact (
  gpu_serial                text NOT NULL,
  bucket                    timestamptz NOT NULL,  -- the hour
  node_id                   bigint NOT NULL REFERENCES nodes (id),
  offsets                   integer[] NOT NULL,    -- seconds after the hour, one per reading
  health_class              smallint[] NOT NULL,
  temperature_c             real[] NOT NULL,
  power_w                   real[] NOT NULL,
  sm_clock_mhz              integer[] NOT NULL,
  clock_event_reasons       bigint[] NOT NULL,
  ecc_corrected_volatile    bigint[] NOT NULL,
  ecc_uncorrected_volatile  bigint[] NOT NULL,
  ecc_corrected_aggregate   bigint[] NOT NULL,
  ecc_uncorrected_aggregate bigint[] NOT NULL,
  remapped_correctable      bigint[] NOT NULL,
  remapped_uncorrectable    bigint[] NOT NULL,
  remap_pending             boolean[] NOT NULL,
  remap_failure             boolean[] NOT NULL,
  retired_pages             bigint[] NOT NULL,
  nvlink_crc_errors         bigint[] NOT NULL,
  nvlink_replay_errors      bigint[] NOT NULL,
  nvlink_recovery_errors    bigint[] NOT NULL,
  xid_count                 integer[] NOT NULL,
  ecc_corrected_delta       bigint[] NOT NULL,
  ecc_uncorrected_delta     bigint[] NOT NULL,
  source                    text[] NOT NULL,
  hbm_temperature_c         real[] NOT NULL,
  mem_clock_mhz             integer[] NOT NULL,
  gpu_utilization_pct       smallint[] NOT NULL,
  pcie_replay_errors        bigint[] NOT NULL,
  pcie_replay_delta         bigint[] NOT NULL,
  pcie_correctable_errors   bigint[] NOT NULL,
  pcie_nonfatal_errors      bigint[] NOT NULL,
  pcie_fatal_errors         bigint[] NOT NULL,
  PRIMARY KEY (gpu_serial, bucket, node_id)
) PARTITION BY RANGE (bucket);
CREATE INDEX gpu_health_compact_node_idx ON gpu_health_compact (node_id, bucket);

-- Every reading, raw or compacted, with the hour it belongs to (`bucket`): what reads use. A
-- condition on `bucket` lets PostgreSQL skip compacted hours outside the range (the one on
-- `sampled_at` then filters the readings of the hours at the edges).
CREATE VIEW gpu_health_readings AS
  SELECT s.gpu_serial, s.sampled_at, s.node_id, s.health_class, s.temperature_c, s.power_w,
         s.sm_clock_mhz, s.clock_event_reasons, s.ecc_corrected_volatile,
         s.ecc_uncorrected_volatile, s.ecc_corrected_aggregate, s.ecc_uncorrected_aggregate,
         s.remapped_correctable, s.remapped_uncorrectable, s.remap_pending, s.remap_failure,
         s.retired_pages, s.nvlink_crc_errors, s.nvlink_replay_errors, s.nvlink_recovery_errors,
         s.xid_count, s.ecc_corrected_delta, s.ecc_uncorrected_delta, s.source,
         s.hbm_temperature_c, s.mem_clock_mhz, s.gpu_utilization_pct, s.pcie_replay_errors,
         s.pcie_replay_delta, s.pcie_correctable_errors, s.pcie_nonfatal_errors,
         s.pcie_fatal_errors,
         date_bin('1 hour', s.sampled_at, timestamptz '2000-01-01 00:00:00+00') AS bucket
    FROM gpu_health_samples s
  UNION ALL
  SELECT c.gpu_serial, c.bucket + make_interval(secs => u.offset_s), c.node_id, u.health_class,
         u.temperature_c, u.power_w, u.sm_clock_mhz, u.clock_event_reasons,
         u.ecc_corrected_volatile, u.ecc_uncorrected_volatile, u.ecc_corrected_aggregate,
         u.ecc_uncorrected_aggregate, u.remapped_correctable, u.remapped_uncorrectable,
         u.remap_pending, u.remap_failure, u.retired_pages, u.nvlink_crc_errors,
         u.nvlink_replay_errors, u.nvlink_recovery_errors, u.xid_count, u.ecc_corrected_delta,
         u.ecc_uncorrected_delta, u.source, u.hbm_temperature_c, u.mem_clock_mhz,
         u.gpu_utilization_pct, u.pcie_replay_errors, u.pcie_replay_delta,
         u.pcie_correctable_errors, u.pcie_nonfatal_errors, u.pcie_fatal_errors, c.bucket
    FROM gpu_health_compact c
   CROSS JOIN LATERAL unnest(
         c.offsets, c.health_class, c.temperature_c, c.power_w, c.sm_clock_mhz,
         c.clock_event_reasons, c.ecc_corrected_volatile, c.ecc_uncorrected_volatile,
         c.ecc_corrected_aggregate, c.ecc_uncorrected_aggregate, c.remapped_correctable,
         c.remapped_uncorrectable, c.remap_pending, c.remap_failure, c.retired_pages,
         c.nvlink_crc_errors, c.nvlink_replay_errors, c.nvlink_recovery_errors, c.xid_count,
         c.ecc_corrected_delta, c.ecc_uncorrected_delta, c.source, c.hbm_temperature_c,
         c.mem_clock_mhz, c.gpu_utilization_pct, c.pcie_replay_errors, c.pcie_replay_delta,
         c.pcie_correctable_errors, c.pcie_nonfatal_errors, c.pcie_fatal_errors)
         AS u(offset_s, health_class, temperature_c, power_w, sm_clock_mhz, clock_event_reasons,
              ecc_corrected_volatile, ecc_uncorrected_volatile, ecc_corrected_aggregate,
              ecc_uncorrected_aggregate, remapped_correctable, remapped_uncorrectable,
              remap_pending, remap_failure, retired_pages, nvlink_crc_errors,
              nvlink_replay_errors, nvlink_recovery_errors, xid_count, ecc_corrected_delta,
              ecc_uncorrected_delta, source, hbm_temperature_c, mem_clock_mhz,
              gpu_utilization_pct, pcie_replay_errors, pcie_replay_delta,
              pcie_correctable_errors, pcie_nonfatal_errors, pcie_fatal_errors);

-- The partition helpers know the compact table too.
CREATE OR REPLACE FUNCTION gpu_health_ensure_partition(parent text, name text, low timestamptz,
                                                       high timestamptz) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF parent NOT IN ('gpu_health_samples', 'gpu_health_hourly', 'gpu_health_daily',
                    'gpu_health_compact') THEN
    RAISE EXCEPTION 'not a health table: %', parent;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('gpu_health_partition:' || name));
  IF to_regclass(name) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent,
                 low, high);
  RETURN true;
END $$;

CREATE OR REPLACE FUNCTION gpu_health_drop_partition(parent text, name text) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_inherits i
                   JOIN pg_class c ON c.oid = i.inhrelid
                   JOIN pg_class p ON p.oid = i.inhparent
                  WHERE p.relname = parent AND c.relname = name
                    AND p.relname IN ('gpu_health_samples', 'gpu_health_hourly',
                                      'gpu_health_daily', 'gpu_health_compact')) THEN
    RETURN false;
  END IF;
  EXECUTE format('DROP TABLE %I', name);
  RETURN true;
END $$;

-- Compacted readings are history too: moved by compaction, dropped with their partition, never
-- deleted one by one.
CREATE TRIGGER gpu_health_compact_no_delete BEFORE DELETE ON gpu_health_compact
  FOR EACH STATEMENT EXECUTE FUNCTION forbid_history_change();
