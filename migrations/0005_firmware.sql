-- Firmware: node labels (failure domains, scheduler partitions), firmware packages, baselines
-- with immutable revisions, the hardware profile's baseline, and what each node's BMC reports in
-- its FirmwareInventory now (with history) and whether the last attempt to read it worked.

-- Node labels ---------------------------------------------------------------------------------

-- {"partition": "p1", "nvlink_domain": "nvl3", "pdu": "pdu-a", "leaf_switch": "leaf07", ...}:
-- string -> string. Keys and values are checked by the inventory library (keys
-- ^[a-z][a-z0-9_.-]{0,62}$, values 1..128 characters).
ALTER TABLE nodes ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'
  CONSTRAINT nodes_labels_check CHECK (jsonb_typeof(labels) = 'object');
CREATE INDEX nodes_labels_idx ON nodes USING gin (labels jsonb_path_ops);

CREATE OR REPLACE VIEW node_summary AS
SELECT n.id, n.state, n.hardware_model, n.chassis_serial, n.bmc_address, n.bmc_mac, n.rack_id,
       coalesce(s.name, '') AS site, coalesce(r.name, '') AS rack, n.u_position,
       (SELECT count(*)::integer
          FROM component_placements p JOIN components c ON c.id = p.component_id
         WHERE p.node_id = n.id AND p.removed_at IS NULL AND c.kind = 'gpu') AS gpu_count,
       n.created_at, n.updated_at, n.state_reason, n.labels
  FROM nodes n
  LEFT JOIN racks r ON r.id = n.rack_id
  LEFT JOIN sites s ON s.id = r.site_id;

-- Firmware packages ---------------------------------------------------------------------------

-- One file in the content-addressed artifact store and what it is: immutable once registered.
-- match: the component matching rule, {"software_id": "..."} (exact SoftwareId) or
-- {"pattern": "..."} (case-insensitive substring of the member's Id or Name).
CREATE TABLE firmware_packages (
  id                bigserial PRIMARY KEY,
  name              text NOT NULL CONSTRAINT firmware_packages_name_check
                      CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  version           text NOT NULL CHECK (version <> '' AND length(version) <= 128),
  vendor            text NOT NULL DEFAULT '',
  models            jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(models) = 'array'),
  component         text NOT NULL CHECK (component ~ '^[a-z][a-z0-9_-]{0,31}$'),
  match             jsonb NOT NULL CHECK (jsonb_typeof(match) = 'object'),
  sha256            text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size              bigint NOT NULL CHECK (size >= 0),
  install_method    text NOT NULL
                      CHECK (install_method IN ('simple_update', 'multipart_push')),
  apply             text NOT NULL CHECK (apply IN ('immediate', 'on_reset', 'ac_power_cycle')),
  min_from_version  text NOT NULL DEFAULT '',
  allow_downgrade   boolean NOT NULL DEFAULT false,
  estimated_seconds integer NOT NULL DEFAULT 600 CHECK (estimated_seconds > 0),
  created_by        text NOT NULL DEFAULT '',
  created_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT firmware_packages_name_version_key UNIQUE (name, version)
);
CREATE INDEX firmware_packages_sha256_idx ON firmware_packages (sha256);
CREATE TRIGGER firmware_packages_immutable BEFORE UPDATE OR DELETE ON firmware_packages
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- Baselines -----------------------------------------------------------------------------------

CREATE TABLE baselines (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL CONSTRAINT baselines_name_key UNIQUE
               CONSTRAINT baselines_name_check CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  created_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Every revision of a baseline, immutable: content is the canonical JSON document, digest its
-- SHA-256 (hex). A new revision is stored only when the canonical content changed.
CREATE TABLE baseline_revisions (
  id          bigserial PRIMARY KEY,
  baseline_id bigint NOT NULL REFERENCES baselines (id),
  revision    integer NOT NULL CHECK (revision > 0),
  content     jsonb NOT NULL CHECK (jsonb_typeof(content) = 'object'),
  digest      text NOT NULL CHECK (digest ~ '^[0-9a-f]{64}$'),
  author      text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT baseline_revisions_revision_key UNIQUE (baseline_id, revision)
);
CREATE TRIGGER baseline_revisions_append_only BEFORE UPDATE OR DELETE ON baseline_revisions
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- The baseline a hardware profile follows, by name ('' = none: min_firmware applies).
ALTER TABLE hardware_profiles ADD COLUMN baseline text NOT NULL DEFAULT ''
  CONSTRAINT hardware_profiles_baseline_check
  CHECK (baseline = '' OR baseline ~ '^[a-z0-9][a-z0-9._-]{0,63}$');

-- Firmware observations -----------------------------------------------------------------------

-- What the node's BMC reported in its FirmwareInventory at the last successful read: one row per
-- member (path = the member's @odata.id). Replaced as a whole by every read.
CREATE TABLE node_firmware (
  node_id     bigint NOT NULL REFERENCES nodes (id),
  path        text NOT NULL CHECK (path <> ''),
  member_id   text NOT NULL DEFAULT '',
  name        text NOT NULL DEFAULT '',
  software_id text NOT NULL DEFAULT '',
  version     text NOT NULL DEFAULT '',
  updateable  boolean NOT NULL DEFAULT false,
  observed_at timestamptz NOT NULL,
  PRIMARY KEY (node_id, path)
);

-- Every observed change of a member's version (and its first sighting). Append-only.
CREATE TABLE node_firmware_history (
  id               bigserial PRIMARY KEY,
  node_id          bigint NOT NULL REFERENCES nodes (id),
  path             text NOT NULL,
  member_id        text NOT NULL DEFAULT '',
  name             text NOT NULL DEFAULT '',
  software_id      text NOT NULL DEFAULT '',
  version          text NOT NULL DEFAULT '',
  previous_version text,  -- NULL: first sighting of this member on this node
  observed_at      timestamptz NOT NULL
);
CREATE INDEX node_firmware_history_node_idx ON node_firmware_history (node_id, id);
CREATE TRIGGER node_firmware_history_append_only BEFORE UPDATE OR DELETE
  ON node_firmware_history FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

-- Per node: the last successful read (observed_at) and the last attempt; reachable is false when
-- the last attempt failed (reason says why), so a stale inventory never reads as current.
CREATE TABLE node_firmware_status (
  node_id      bigint PRIMARY KEY REFERENCES nodes (id),
  observed_at  timestamptz,
  attempted_at timestamptz NOT NULL,
  reachable    boolean NOT NULL,
  reason       text NOT NULL DEFAULT ''
);
