-- When a node's components were last reported (by its inspection or PUT .../components), even a
-- report of none: the PO reconciliation tells "never inspected" (GPU count unknown) from
-- "inspected, 0 GPUs". Nodes that already hold placements count as reported.
ALTER TABLE nodes ADD COLUMN components_reported_at timestamptz;
UPDATE nodes n SET components_reported_at = n.updated_at
 WHERE EXISTS (SELECT 1 FROM component_placements p WHERE p.node_id = n.id);
