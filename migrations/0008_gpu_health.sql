-- GPU health history (docs/health.md): raw samples by day, hourly and daily roll-ups, each GPU's
-- counter state for reset detection, XID bursts, and health events kept forever. Everything is
-- keyed by the GPU's serial (as burn_in_results is), not by its placement: the history follows
-- the GPU from node to node. node_id says where each reading was taken.
--
-- Partitions are created by the inventory library (ensureHealthPartitions) ahead of the data
-- and dropped by retention (applyHealthRetention): raw samples per UTC day, hourly roll-ups per
-- month, daily roll-ups per year. There is no default partition: a reading for a day without
-- one is refused rather than parked where retention would never find it.

-- One reading of one GPU. Counters are the raw values the GPU reported; the *_delta columns are
-- the new errors this reading adds after reset correction (inventory::health::advanceCounters),
-- so roll-ups sum them without looking at neighbouring rows.
CREATE TABLE gpu_health_samples (
  gpu_serial                text NOT NULL CHECK (gpu_serial <> ''),
  sampled_at                timestamptz NOT NULL,
  node_id                   bigint NOT NULL REFERENCES nodes (id),
  health_class              smallint NOT NULL CHECK (health_class BETWEEN 0 AND 2),
  temperature_c             real,
  power_w                   real,
  sm_clock_mhz              integer,
  clock_event_reasons       bigint NOT NULL DEFAULT 0,
  ecc_corrected_volatile    bigint,
  ecc_uncorrected_volatile  bigint,
  ecc_corrected_aggregate   bigint,
  ecc_uncorrected_aggregate bigint,
  remapped_correctable      bigint,
  remapped_uncorrectable    bigint,
  remap_pending             boolean NOT NULL DEFAULT false,
  remap_failure             boolean NOT NULL DEFAULT false,
  retired_pages             bigint,
  nvlink_crc_errors         bigint,
  nvlink_replay_errors      bigint,
  nvlink_recovery_errors    bigint,
  xid_count                 integer NOT NULL DEFAULT 0,
  ecc_corrected_delta       bigint NOT NULL DEFAULT 0,
  ecc_uncorrected_delta     bigint NOT NULL DEFAULT 0,
  -- One reading per GPU and instant: a retried batch is stored once.
  PRIMARY KEY (gpu_serial, sampled_at)
) PARTITION BY RANGE (sampled_at);
-- Rows arrive in time order, so a BRIN range index on time is tiny and prunes blocks within a
-- day's partition for fleet-wide reads (roll-ups); the primary key serves one GPU's history.
CREATE INDEX gpu_health_samples_time_brin ON gpu_health_samples USING brin (sampled_at);
CREATE INDEX gpu_health_samples_node_idx ON gpu_health_samples (node_id, sampled_at);
-- Retention drops partitions; a DELETE on the table is a mistake (and would bloat it).
CREATE TRIGGER gpu_health_samples_no_delete BEFORE DELETE ON gpu_health_samples
  FOR EACH STATEMENT EXECUTE FUNCTION forbid_history_change();

-- Hourly and daily roll-ups per GPU and node (a GPU moved mid-hour has one row per node). Sums
-- and counts rather than averages, so they merge exactly (inventory::health::Stat): a day is
-- built from its hours, a rack from its GPUs.
CREATE TABLE gpu_health_hourly (
  gpu_serial            text NOT NULL,
  bucket                timestamptz NOT NULL,
  node_id               bigint NOT NULL REFERENCES nodes (id),
  samples               integer NOT NULL,
  temperature_n         integer NOT NULL DEFAULT 0,
  temperature_sum       double precision NOT NULL DEFAULT 0,
  temperature_min       real,
  temperature_max       real,
  power_n               integer NOT NULL DEFAULT 0,
  power_sum             double precision NOT NULL DEFAULT 0,
  power_min             real,
  power_max             real,
  sm_clock_n            integer NOT NULL DEFAULT 0,
  sm_clock_sum          double precision NOT NULL DEFAULT 0,
  sm_clock_min          integer,
  sm_clock_max          integer,
  throttled_samples     integer NOT NULL DEFAULT 0,
  clock_event_reasons   bigint NOT NULL DEFAULT 0,  -- every reason seen (bitwise or)
  ecc_corrected_delta   bigint NOT NULL DEFAULT 0,
  ecc_uncorrected_delta bigint NOT NULL DEFAULT 0,
  xid_count             integer NOT NULL DEFAULT 0,
  healthy_samples       integer NOT NULL DEFAULT 0,
  warning_samples       integer NOT NULL DEFAULT 0,
  critical_samples      integer NOT NULL DEFAULT 0,
  worst_class           smallint NOT NULL DEFAULT 0,
  PRIMARY KEY (gpu_serial, bucket, node_id)
) PARTITION BY RANGE (bucket);
CREATE INDEX gpu_health_hourly_time_brin ON gpu_health_hourly USING brin (bucket);

CREATE TABLE gpu_health_daily (LIKE gpu_health_hourly INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
  PRIMARY KEY (gpu_serial, bucket, node_id)) PARTITION BY RANGE (bucket);
ALTER TABLE gpu_health_daily ADD FOREIGN KEY (node_id) REFERENCES nodes (id);
CREATE INDEX gpu_health_daily_time_brin ON gpu_health_daily USING brin (bucket);

-- Buckets whose roll-up is due: each ingest marks the (hour, node) it wrote to, each hourly
-- roll-up marks its (day, node). rollUpHealth recomputes a marked bucket from the level below
-- once the bucket has ended and removes the mark, so late readings are rolled up again and a
-- second run finds nothing to do.
CREATE TABLE gpu_health_rollup_due (
  level     text NOT NULL CHECK (level IN ('hourly', 'daily')),
  bucket    timestamptz NOT NULL,
  node_id   bigint NOT NULL,
  marked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (level, bucket, node_id)
);

-- Per GPU: the last raw counters and the lifetime totals ({"ecc_corrected_volatile": 12, ...}),
-- read and written under a row lock by every ingest, so each increment is counted once.
CREATE TABLE gpu_counter_state (
  gpu_serial    text PRIMARY KEY CHECK (gpu_serial <> ''),
  node_id       bigint NOT NULL REFERENCES nodes (id),
  last_sample   timestamptz,  -- NULL: locked for a first reading, none stored yet
  driver_epoch  text NOT NULL DEFAULT '',
  last_raw      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(last_raw) = 'object'),
  lifetime      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(lifetime) = 'object'),
  resets        integer NOT NULL DEFAULT 0,
  remap_pending boolean NOT NULL DEFAULT false,
  remap_failure boolean NOT NULL DEFAULT false,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- XID bursts: the same XID within the burst window is one row that grows (count, last_at).
CREATE TABLE gpu_xid_bursts (
  id         bigserial PRIMARY KEY,
  gpu_serial text NOT NULL CHECK (gpu_serial <> ''),
  xid        integer NOT NULL CHECK (xid > 0),
  node_id    bigint NOT NULL REFERENCES nodes (id),
  first_at   timestamptz NOT NULL,
  last_at    timestamptz NOT NULL,
  count      bigint NOT NULL CHECK (count > 0),
  CHECK (last_at >= first_at)
);
CREATE INDEX gpu_xid_bursts_gpu_idx ON gpu_xid_bursts (gpu_serial, xid, last_at DESC);

-- What happened to a GPU, forever: xid_burst, ecc_errors, rows_remapped, pages_retired,
-- threshold_crossed / threshold_cleared (remap pending, remap failure), counter_reset,
-- gpu_moved, first_seen; later flag_raised / flag_cleared (issue 13 §3). Append-only.
CREATE TABLE gpu_health_events (
  id         bigserial PRIMARY KEY,
  gpu_serial text NOT NULL CHECK (gpu_serial <> ''),
  kind       text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
  at         timestamptz NOT NULL,
  node_id    bigint REFERENCES nodes (id),
  detail     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(detail) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gpu_health_events_gpu_idx ON gpu_health_events (gpu_serial, at, id);
CREATE INDEX gpu_health_events_kind_idx ON gpu_health_events (kind, at);
CREATE TRIGGER gpu_health_events_append_only BEFORE UPDATE OR DELETE ON gpu_health_events
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- Partition maintenance, called by the inventory library with names it computed
-- (inventory::health::partitionFor): creates one partition if missing, serialised per name so
-- that two ingests racing for a new day do not collide in the catalog.
CREATE FUNCTION gpu_health_ensure_partition(parent text, name text, low timestamptz,
                                            high timestamptz) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF parent NOT IN ('gpu_health_samples', 'gpu_health_hourly', 'gpu_health_daily') THEN
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

-- Drops one partition of a health table (retention): only a table attached to that parent.
CREATE FUNCTION gpu_health_drop_partition(parent text, name text) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_inherits i
                   JOIN pg_class c ON c.oid = i.inhrelid
                   JOIN pg_class p ON p.oid = i.inhparent
                  WHERE p.relname = parent AND c.relname = name
                    AND p.relname IN ('gpu_health_samples', 'gpu_health_hourly',
                                      'gpu_health_daily')) THEN
    RETURN false;
  END IF;
  EXECUTE format('DROP TABLE %I', name);
  RETURN true;
END $$;
