-- Who used a boot token: the SHA-256 of the registration key the agent sent with it
-- (Idempotency-Key). The same agent retrying a registration whose answer was lost (the replica
-- that took it was killed, the connection cut) presents the same key and is registered again
-- instead of being refused as a second use; anyone else still gets agent_token_used. NULL: used
-- without a key (older agents), never matched.
ALTER TABLE agent_tokens ADD COLUMN used_by text
  CONSTRAINT agent_tokens_used_by_check CHECK (used_by ~ '^[0-9a-f]{64}$');
