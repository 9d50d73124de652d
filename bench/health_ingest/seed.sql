-- Synthetic fleet for the health-ingest benchmark: :nodes nodes in service (16 per rack), each
-- with a live monitor credential whose secret is 'nmc_bench_<node id>' (only its SHA-256 is
-- stored, as the service stores every credential). Bulk SQL for speed: enrolling 1,250 nodes
-- through burn-ins is not what is measured; every batch still goes through the real check.
\set ON_ERROR_STOP on
BEGIN;
INSERT INTO sites (id, name, description) VALUES (1, 'bench', 'synthetic health-ingest fleet');
INSERT INTO racks (id, site_id, name, u_height)
SELECT r, 1, 'HR' || lpad(r::text, 5, '0'), 42 FROM generate_series(1, (:nodes + 15) / 16) r;
INSERT INTO nodes (id, state, hardware_model, chassis_serial, bmc_address, bmc_mac, rack_id,
                   u_position)
SELECT n, 'ready', 'DGX H100', 'HN' || lpad(n::text, 7, '0'),
       '10.' || (n / 65536) || '.' || (n / 256 % 256) || '.' || (n % 256),
       '02:00:' || regexp_replace(lpad(to_hex(n), 8, '0'), '(..)(..)(..)(..)', '\1:\2:\3:\4'),
       (n - 1) / 16 + 1, (n - 1) % 16 * 2 + 2
  FROM generate_series(1, :nodes) n;
INSERT INTO node_credentials (node_id, token_hash)
SELECT n, encode(sha256(convert_to('nmc_bench_' || n, 'UTF8')), 'hex')
  FROM generate_series(1, :nodes) n;
SELECT setval('sites_id_seq', 1), setval('racks_id_seq', (SELECT max(id) FROM racks)),
       setval('nodes_id_seq', :nodes);
COMMIT;
ANALYZE;
