-- Inventory v1: where hardware stands, what each node holds (with history), what procurement
-- ordered, and who may call the API. Constraint names are stable: the inventory library maps
-- them to error codes (duplicate_serial, duplicate_bmc_mac, ...).

-- Timestamps leave the database as ISO 8601 UTC text with microseconds and a Z.
CREATE FUNCTION iso8601(t timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

-- History tables are append-only: rows may be added, never changed or deleted.
CREATE FUNCTION forbid_history_change() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;

-- Places -------------------------------------------------------------------------------------

CREATE TABLE sites (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL CONSTRAINT sites_name_key UNIQUE CHECK (name <> ''),
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE rooms (
  id      bigserial PRIMARY KEY,
  site_id bigint NOT NULL REFERENCES sites (id),
  name    text NOT NULL CHECK (name <> ''),
  CONSTRAINT rooms_site_id_name_key UNIQUE (site_id, name)
);

CREATE TABLE rows (
  id      bigserial PRIMARY KEY,
  room_id bigint NOT NULL REFERENCES rooms (id),
  name    text NOT NULL CHECK (name <> ''),
  CONSTRAINT rows_room_id_name_key UNIQUE (room_id, name)
);

CREATE TABLE racks (
  id         bigserial PRIMARY KEY,
  site_id    bigint NOT NULL REFERENCES sites (id),
  room_id    bigint REFERENCES rooms (id),
  row_id     bigint REFERENCES rows (id),
  name       text NOT NULL CHECK (name <> ''),
  u_height   integer NOT NULL CONSTRAINT racks_u_height_check CHECK (u_height BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT racks_site_id_name_key UNIQUE (site_id, name)
);
CREATE INDEX racks_name_idx ON racks (name);

-- Nodes --------------------------------------------------------------------------------------

CREATE TABLE nodes (
  id             bigserial PRIMARY KEY,
  state          text NOT NULL DEFAULT 'discovered' CONSTRAINT nodes_state_check CHECK (state IN (
                   'discovered', 'matched', 'claimed', 'inspected', 'configured', 'imaging',
                   'burn_in', 'ready', 'quarantined', 'decommissioning', 'retired')),
  hardware_model text NOT NULL DEFAULT '',
  chassis_serial text NOT NULL CONSTRAINT nodes_chassis_serial_key UNIQUE
                   CHECK (chassis_serial <> ''),
  bmc_address    text NOT NULL DEFAULT '',
  bmc_mac        text CHECK (bmc_mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$'),
  rack_id        bigint REFERENCES racks (id),
  -- Checked against the rack's height in code (a CHECK cannot see the rack row).
  u_position     integer CHECK (u_position >= 1),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX nodes_bmc_mac_key ON nodes (bmc_mac) WHERE bmc_mac IS NOT NULL;
CREATE INDEX nodes_rack_id_idx ON nodes (rack_id, id);
CREATE INDEX nodes_state_idx ON nodes (state, id);
CREATE INDEX nodes_hardware_model_idx ON nodes (hardware_model, id);

-- Components: a part's identity is its serial; where it sits and its firmware are history.
CREATE TABLE components (
  id               bigserial PRIMARY KEY,
  serial           text NOT NULL CONSTRAINT components_serial_key UNIQUE CHECK (serial <> ''),
  kind             text NOT NULL CONSTRAINT components_kind_check CHECK (kind IN (
                     'gpu', 'cpu', 'dimm', 'nic', 'drive', 'psu', 'bmc', 'bios', 'nvswitch',
                     'fan', 'board', 'other')),
  manufacturer     text NOT NULL DEFAULT '',
  model            text NOT NULL DEFAULT '',
  part_number      text NOT NULL DEFAULT '',
  -- The latest row of component_firmware, kept here so lookups and filters need no scan.
  firmware_version text NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX components_firmware_version_idx ON components (firmware_version)
  WHERE firmware_version <> '';

CREATE TABLE component_placements (
  id             bigserial PRIMARY KEY,
  component_id   bigint NOT NULL REFERENCES components (id),
  node_id        bigint NOT NULL REFERENCES nodes (id),
  slot           text NOT NULL DEFAULT '',
  installed_at   timestamptz NOT NULL DEFAULT now(),
  removed_at     timestamptz,
  removal_reason text,
  rma_ticket     text,
  CHECK (removed_at IS NULL OR removed_at >= installed_at),
  CHECK ((removed_at IS NULL) = (removal_reason IS NULL))
);
-- A part is installed in at most one place at a time.
CREATE UNIQUE INDEX component_placements_open_key ON component_placements (component_id)
  WHERE removed_at IS NULL;
CREATE INDEX component_placements_node_open_idx ON component_placements (node_id)
  WHERE removed_at IS NULL;
CREATE INDEX component_placements_component_idx ON component_placements (component_id, id);

CREATE TABLE component_firmware (
  id           bigserial PRIMARY KEY,
  component_id bigint NOT NULL REFERENCES components (id),
  node_id      bigint REFERENCES nodes (id),
  version      text NOT NULL CHECK (version <> ''),
  observed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX component_firmware_component_idx ON component_firmware (component_id, id);
CREATE TRIGGER component_firmware_append_only BEFORE UPDATE OR DELETE ON component_firmware
  FOR EACH ROW EXECUTE FUNCTION forbid_history_change();

CREATE TABLE node_events (
  id      bigserial PRIMARY KEY,
  node_id bigint NOT NULL REFERENCES nodes (id),
  at      timestamptz NOT NULL DEFAULT now(),
  actor   text NOT NULL DEFAULT '',
  kind    text NOT NULL CHECK (kind <> ''),
  message text NOT NULL DEFAULT '',
  detail  jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX node_events_node_idx ON node_events (node_id, id);

-- Procurement --------------------------------------------------------------------------------

CREATE TABLE purchase_orders (
  id         bigserial PRIMARY KEY,
  po_number  text NOT NULL CONSTRAINT purchase_orders_po_number_key UNIQUE
               CHECK (po_number <> ''),
  vendor     text NOT NULL CHECK (vendor <> ''),
  status     text NOT NULL DEFAULT 'open' CONSTRAINT purchase_orders_status_check
               CHECK (status IN ('open', 'closed', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE po_line_items (
  id          bigserial PRIMARY KEY,
  po_id       bigint NOT NULL REFERENCES purchase_orders (id),
  line_no     integer NOT NULL CHECK (line_no >= 1),
  model       text NOT NULL DEFAULT '',
  quantity    integer NOT NULL CHECK (quantity >= 0),
  gpu_count   integer CHECK (gpu_count >= 0),
  description text NOT NULL DEFAULT '',
  CONSTRAINT po_line_items_po_id_line_no_key UNIQUE (po_id, line_no)
);

CREATE TABLE expected_assets (
  id                      bigserial PRIMARY KEY,
  po_id                   bigint NOT NULL REFERENCES purchase_orders (id),
  chassis_serial          text NOT NULL CONSTRAINT expected_assets_chassis_serial_key UNIQUE
                            CHECK (chassis_serial <> ''),
  bmc_mac                 text CHECK (bmc_mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$'),
  model                   text NOT NULL CHECK (model <> ''),
  gpu_count               integer CHECK (gpu_count >= 0),
  rack                    text NOT NULL DEFAULT '',
  u_position              integer CHECK (u_position >= 1),
  line_no                 integer,
  factory_username        text NOT NULL DEFAULT '',
  -- SecretBox output ("v1:" + base64), never plaintext.
  factory_password_sealed text CHECK (factory_password_sealed LIKE 'v1:%'),
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX expected_assets_bmc_mac_key ON expected_assets (bmc_mac)
  WHERE bmc_mac IS NOT NULL;
CREATE INDEX expected_assets_po_idx ON expected_assets (po_id, id);
CREATE INDEX expected_assets_rack_idx ON expected_assets (rack) WHERE rack <> '';

-- Access -------------------------------------------------------------------------------------

CREATE TABLE api_tokens (
  id         bigserial PRIMARY KEY,
  name       text NOT NULL CHECK (name <> ''),
  role       text NOT NULL CONSTRAINT api_tokens_role_check
               CHECK (role IN ('viewer', 'procurement', 'asset', 'operator', 'admin')),
  token_hash text NOT NULL CONSTRAINT api_tokens_token_hash_key UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

-- No foreign key to api_tokens: an audit row must never be refused.
CREATE TABLE audit_log (
  id         bigserial PRIMARY KEY,
  at         timestamptz NOT NULL DEFAULT now(),
  token_id   bigint,
  actor      text NOT NULL DEFAULT '',
  role       text NOT NULL DEFAULT '',
  method     text NOT NULL DEFAULT '',
  path       text NOT NULL DEFAULT '',
  action     text NOT NULL DEFAULT '',
  request_id text NOT NULL DEFAULT '',
  status     integer NOT NULL DEFAULT 0,
  outcome    text NOT NULL DEFAULT '',
  detail     jsonb NOT NULL DEFAULT '{}'
);

-- Read models --------------------------------------------------------------------------------

CREATE VIEW rack_summary AS
SELECT r.id, s.name AS site, coalesce(rm.name, '') AS room, coalesce(rw.name, '') AS row_name,
       r.name, r.u_height,
       (SELECT count(*)::integer FROM nodes n WHERE n.rack_id = r.id) AS node_count,
       r.created_at
  FROM racks r
  JOIN sites s ON s.id = r.site_id
  LEFT JOIN rooms rm ON rm.id = r.room_id
  LEFT JOIN rows rw ON rw.id = r.row_id;

CREATE VIEW node_summary AS
SELECT n.id, n.state, n.hardware_model, n.chassis_serial, n.bmc_address, n.bmc_mac, n.rack_id,
       coalesce(s.name, '') AS site, coalesce(r.name, '') AS rack, n.u_position,
       (SELECT count(*)::integer
          FROM component_placements p JOIN components c ON c.id = p.component_id
         WHERE p.node_id = n.id AND p.removed_at IS NULL AND c.kind = 'gpu') AS gpu_count,
       n.created_at, n.updated_at
  FROM nodes n
  LEFT JOIN racks r ON r.id = n.rack_id
  LEFT JOIN sites s ON s.id = r.site_id;
