-- A replica's liveness key on the runs it leases: the key of the session-level advisory lock the
-- replica holds on a connection of its own (inventory/replica_liveness.hpp). When that lock is
-- gone (the replica's connection dropped: killed, crashed, its host lost) other replicas claim
-- the run at once instead of waiting for lease_expires_at. NULL: a replica without liveness
-- (tools, tests driving runOnce()); only the lease's expiry frees the run.
ALTER TABLE workflow_runs ADD COLUMN lease_live_key integer;
