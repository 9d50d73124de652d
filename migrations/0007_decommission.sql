-- Decommissioning: one record per decommission of a node, what was sanitized on every device and
-- how it was verified, the raw evidence by digest, the signed certificate, and what became of
-- each asset afterwards (RMA, spare, redeploy, recycled). Timestamps come from the engine's clock
-- (a parameter) where the workflow writes them, so tests drive them with a fake clock.

-- A node whose decommission failed stays out of service until a person looks.
ALTER TABLE nodes DROP CONSTRAINT nodes_state_check;
ALTER TABLE nodes ADD CONSTRAINT nodes_state_check CHECK (state IN (
  'discovered', 'matched', 'claimed', 'inspected', 'configured', 'firmware', 'imaging',
  'burn_in', 'ready', 'quarantined', 'decommissioning', 'decommission_failed', 'retired'));

CREATE TABLE decommissions (
  id             bigserial PRIMARY KEY,
  node_id        bigint NOT NULL REFERENCES nodes (id),
  reason         text NOT NULL CONSTRAINT decommissions_reason_check CHECK (reason IN (
                   'rma', 'refresh', 'redeploy', 'tenant_change', 'disposal')),
  state          text NOT NULL DEFAULT 'running' CONSTRAINT decommissions_state_check
                   CHECK (state IN ('running', 'succeeded', 'failed')),
  requested_by   text NOT NULL CHECK (requested_by <> ''),
  note           text NOT NULL DEFAULT '',
  -- The wipe's pseudo-random pass and the drives' sample positions derive from it.
  wipe_seed      bigint NOT NULL,
  failure_reason text NOT NULL DEFAULT '',
  failure_detail jsonb NOT NULL DEFAULT '{}',
  created_at     timestamptz NOT NULL,
  finished_at    timestamptz,
  CHECK ((finished_at IS NULL) = (state = 'running'))
);
-- One decommission at a time per node.
CREATE UNIQUE INDEX decommissions_open_key ON decommissions (node_id) WHERE state = 'running';
CREATE INDEX decommissions_node_idx ON decommissions (node_id, id);

-- What was sanitized, per device serial, in the words of NIST SP 800-88 Rev. 2.
CREATE TABLE decommission_devices (
  decommission_id       bigint NOT NULL REFERENCES decommissions (id),
  serial                text NOT NULL CHECK (serial <> ''),
  media_type            text NOT NULL CHECK (media_type IN ('gpu_hbm', 'ssd', 'hdd')),
  manufacturer          text NOT NULL DEFAULT '',
  model                 text NOT NULL DEFAULT '',
  sanitization          text NOT NULL CHECK (sanitization IN ('clear', 'purge', 'none')),
  technique             text NOT NULL DEFAULT '',
  tool                  text NOT NULL DEFAULT '',
  tool_version          text NOT NULL DEFAULT '',
  verification_method   text NOT NULL DEFAULT '',
  verification_coverage double precision NOT NULL DEFAULT 0
                          CHECK (verification_coverage >= 0 AND verification_coverage <= 1),
  verified_by           text NOT NULL DEFAULT '',
  result                text NOT NULL CHECK (result IN ('passed', 'failed')),
  failure               text NOT NULL DEFAULT '',
  detail                jsonb NOT NULL DEFAULT '{}',
  started_at            timestamptz,
  finished_at           timestamptz,
  PRIMARY KEY (decommission_id, serial)
);
CREATE INDEX decommission_devices_serial_idx ON decommission_devices (serial);

-- Raw evidence (the agent's report, BMC task results) kept verbatim; the certificate names each
-- by its SHA-256.
CREATE TABLE decommission_evidence (
  decommission_id bigint NOT NULL REFERENCES decommissions (id),
  name            text NOT NULL CHECK (name <> ''),
  sha256          text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  body            text NOT NULL,
  recorded_at     timestamptz NOT NULL,
  PRIMARY KEY (decommission_id, name)
);

-- The signed certificate: `document` holds exactly the signed bytes.
CREATE TABLE sanitization_certificates (
  id              bigserial PRIMARY KEY,
  decommission_id bigint NOT NULL CONSTRAINT sanitization_certificates_decommission_key UNIQUE
                    REFERENCES decommissions (id),
  node_id         bigint NOT NULL REFERENCES nodes (id),
  key_id          text NOT NULL CHECK (key_id <> ''),
  document        text NOT NULL,
  document_sha256 text NOT NULL CHECK (document_sha256 ~ '^[0-9a-f]{64}$'),
  signature       bytea NOT NULL CHECK (length(signature) = 64),
  issued_at       timestamptz NOT NULL
);
CREATE INDEX sanitization_certificates_node_idx ON sanitization_certificates (node_id, id);

-- End of life per asset: a node (node_id) or a component (component_serial).
CREATE TABLE asset_dispositions (
  id                   bigserial PRIMARY KEY,
  node_id              bigint REFERENCES nodes (id),
  component_serial     text,
  disposition          text NOT NULL CONSTRAINT asset_dispositions_check CHECK (disposition IN (
                         'rma', 'spare', 'redeploy', 'recycled')),
  rma_ticket           text NOT NULL DEFAULT '',
  rma_vendor           text NOT NULL DEFAULT '',
  shipped_on           date,
  replacement_serial   text NOT NULL DEFAULT '',
  recycler             text NOT NULL DEFAULT '',
  recycler_certificate text NOT NULL DEFAULT '',
  weight_kg            double precision CHECK (weight_kg > 0),
  note                 text NOT NULL DEFAULT '',
  recorded_by          text NOT NULL CHECK (recorded_by <> ''),
  recorded_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((node_id IS NULL) <> (component_serial IS NULL)),
  CHECK (disposition <> 'rma' OR rma_ticket <> ''),
  CHECK (disposition <> 'recycled' OR recycler <> '')
);
CREATE INDEX asset_dispositions_node_idx ON asset_dispositions (node_id, id)
  WHERE node_id IS NOT NULL;
CREATE INDEX asset_dispositions_serial_idx ON asset_dispositions (component_serial, id)
  WHERE component_serial IS NOT NULL;
CREATE INDEX asset_dispositions_replacement_idx ON asset_dispositions (replacement_serial)
  WHERE replacement_serial <> '';
