-- Synthetic fleet for the asset-lookup benchmark: :nodes nodes (16 per rack) x 20 components,
-- each with one placement and one firmware record. Bulk SQL for speed; the service itself only
-- writes through inventory/. Serials: nodes BN0000001.., components BN-number + slot 01..20.
\set ON_ERROR_STOP on
BEGIN;
INSERT INTO sites (id, name, description) VALUES (1, 'bench', 'synthetic benchmark fleet');
INSERT INTO racks (id, site_id, name, u_height)
SELECT r, 1, 'BR' || lpad(r::text, 5, '0'), 42 FROM generate_series(1, (:nodes + 15) / 16) r;
INSERT INTO nodes (id, state, hardware_model, chassis_serial, bmc_address, bmc_mac, rack_id,
                   u_position)
SELECT n, 'ready', 'DGX H100', 'BN' || lpad(n::text, 7, '0'),
       '10.' || (n / 65536) || '.' || (n / 256 % 256) || '.' || (n % 256),
       '02:00:' || regexp_replace(lpad(to_hex(n), 8, '0'), '(..)(..)(..)(..)', '\1:\2:\3:\4'),
       (n - 1) / 16 + 1, (n - 1) % 16 * 2 + 2
  FROM generate_series(1, :nodes) n;
INSERT INTO components (id, serial, kind, manufacturer, model, part_number, firmware_version)
SELECT (n - 1) * 20 + k, 'BC' || lpad(n::text, 7, '0') || lpad(k::text, 2, '0'),
       CASE WHEN k <= 8 THEN 'gpu' WHEN k <= 10 THEN 'cpu' WHEN k <= 14 THEN 'nic'
            WHEN k <= 16 THEN 'drive' WHEN k <= 18 THEN 'psu' WHEN k = 19 THEN 'bmc'
            ELSE 'bios' END,
       'Vendor', 'Model-' || k, 'PN-' || k,
       CASE WHEN k <= 8 THEN '96.00.74.00.01' ELSE '1.' || k END
  FROM generate_series(1, :nodes) n, generate_series(1, 20) k;
INSERT INTO component_placements (component_id, node_id, slot)
SELECT (n - 1) * 20 + k, n, 'SLOT' || k FROM generate_series(1, :nodes) n, generate_series(1, 20) k;
INSERT INTO component_firmware (component_id, node_id, version)
SELECT c.id, (c.id - 1) / 20 + 1, c.firmware_version FROM components c;
SELECT setval('sites_id_seq', 1), setval('racks_id_seq', (SELECT max(id) FROM racks)),
       setval('nodes_id_seq', :nodes), setval('components_id_seq', :nodes * 20);
COMMIT;
ANALYZE;
