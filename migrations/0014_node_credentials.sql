-- The resident agent's credential (docs/health.md, "The monitor credential"): one long-lived,
-- node-scoped secret per node in service, stored only as its SHA-256 hash. The agent enrolls
-- with its burn-in task's session token; rotation is two-phase (the successor is issued to the
-- agent, the predecessor is revoked when the successor is first used), so an answer lost in
-- transit never strands a node; revocation (an operator's, or decommissioning's) is immediate.
CREATE TABLE node_credentials (
  id             bigserial PRIMARY KEY,
  node_id        bigint NOT NULL REFERENCES nodes (id),
  token_hash     text NOT NULL CONSTRAINT node_credentials_token_hash_key UNIQUE
                   CONSTRAINT node_credentials_token_hash_check CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  -- The burn-in task whose agent enrolled (NULL for a rotation's successor).
  task_id        bigint REFERENCES agent_tasks (id),
  -- The credential this one replaces (a rotation); revoked when this one is first used.
  predecessor_id bigint REFERENCES node_credentials (id),
  issued_at      timestamptz NOT NULL DEFAULT now(),
  first_used_at  timestamptz,
  -- An operator asked for a rotation: the agent is told in its next batch's answer.
  rotate_requested_at timestamptz,
  revoked_at     timestamptz,
  revoked_reason text CONSTRAINT node_credentials_revoked_reason_check
                   CHECK (revoked_reason IN ('rotated', 'superseded', 're_enrolled', 'operator',
                                             'decommissioned')),
  CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
);
CREATE INDEX node_credentials_node_live_idx ON node_credentials (node_id)
  WHERE revoked_at IS NULL;
