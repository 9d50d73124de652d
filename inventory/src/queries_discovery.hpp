// SQL of BMC discoveries and subnet sweeps (migration 0004). Recording is an upsert: triggers
// repeat (DHCP renewals, overlapping sweeps, a manifest imported twice).
#pragma once

#include "db.hpp"

// Columns read by discoveryFromRow(), from bmc_discoveries d.
#define INVENTORY_DISCOVERY_COLUMNS                                                           \
  "d.id, coalesce(d.bmc_mac, ''), d.bmc_address, d.hostname, d.vendor_class, d.source,"       \
  " d.site, d.rack, d.u_position, d.expected_serial, d.lease_state, d.node_id, d.seen_count," \
  " iso8601(d.first_seen_at), iso8601(d.last_seen_at)"
// Columns read by sweepFromRow(), from discovery_sweeps s.
#define INVENTORY_SWEEP_COLUMNS                                                              \
  "s.id, s.cidr, s.scheme, s.port, s.site, s.rack, s.state, s.addresses, s.probed, s.found," \
  " s.error, s.requested_by, iso8601(s.created_at), coalesce(iso8601(s.finished_at), '')"

// What a repeated sighting refreshes. The address, lease state and last sighting are the
// newest; what a report leaves empty (a lease has no rack) keeps what an earlier one said. A row
// only swept so far takes the source of a more telling report (a lease, a manifest).
#define INVENTORY_DISCOVERY_REFRESH                                                      \
  " bmc_address = $2::text,"                                                             \
  " hostname = CASE WHEN $3::text = '' THEN d.hostname ELSE $3::text END,"               \
  " vendor_class = CASE WHEN $4::text = '' THEN d.vendor_class ELSE $4::text END,"       \
  " source = CASE WHEN d.source = 'sweep' THEN $5::text ELSE d.source END,"              \
  " site = CASE WHEN $6::text = '' THEN d.site ELSE $6::text END,"                       \
  " rack = CASE WHEN $7::text = '' THEN d.rack ELSE $7::text END,"                       \
  " u_position = coalesce($8::integer, d.u_position),"                                   \
  " expected_serial = CASE WHEN $9::text = '' THEN d.expected_serial ELSE $9::text END," \
  " lease_state = $10::text, seen_count = d.seen_count + 1, last_seen_at = now()"

namespace inventory::detail {

// A BMC first found by address (a sweep) and now seen with its MAC: the same row takes the MAC,
// unless another row already has it. $1 is the MAC, the rest as in the refresh.
constexpr Query kAdoptDiscoveryByAddress{
    "adopt_discovery_by_address",
    "UPDATE bmc_discoveries d SET bmc_mac = $1::text," INVENTORY_DISCOVERY_REFRESH
    " WHERE d.bmc_address = $2 AND d.bmc_mac IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM bmc_discoveries m WHERE m.bmc_mac = $1::text)"
    " RETURNING " INVENTORY_DISCOVERY_COLUMNS ", false"};

// $1 MAC, $2 address, $3 hostname, $4 vendor class, $5 source, $6 site, $7 rack, $8 u,
// $9 expected serial, $10 lease state. The last column says whether the row is new.
constexpr Query kUpsertDiscoveryByMac{
    "upsert_discovery_by_mac",
    "INSERT INTO bmc_discoveries AS d (bmc_mac, bmc_address, hostname, vendor_class, source,"
    " site, rack, u_position, expected_serial, lease_state)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    " ON CONFLICT (bmc_mac) WHERE bmc_mac IS NOT NULL DO UPDATE SET" INVENTORY_DISCOVERY_REFRESH
    " RETURNING " INVENTORY_DISCOVERY_COLUMNS ", d.xmax = 0"};

// A report without a MAC (a sweep): the MAC-less row at this address, else the row whose BMC
// holds this address now (an active lease), so that a sweep after DHCP finds the same BMC.
// $1 is unused (NULL) to share the parameter numbering of the refresh.
constexpr Query kRefreshDiscoveryByAddress{
    "refresh_discovery_by_address",
    "UPDATE bmc_discoveries d SET" INVENTORY_DISCOVERY_REFRESH
    " WHERE d.id = (SELECT a.id FROM bmc_discoveries a"
    "  WHERE a.bmc_address = $2 AND ($1::text IS NULL)"
    "    AND (a.bmc_mac IS NULL OR a.lease_state = 'active')"
    "  ORDER BY a.bmc_mac IS NULL DESC, a.last_seen_at DESC, a.id DESC LIMIT 1)"
    " RETURNING " INVENTORY_DISCOVERY_COLUMNS ", false"};

constexpr Query kInsertDiscoveryByAddress{
    "insert_discovery_by_address",
    "INSERT INTO bmc_discoveries AS d (bmc_mac, bmc_address, hostname, vendor_class, source,"
    " site, rack, u_position, expected_serial, lease_state)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    " ON CONFLICT (bmc_address) WHERE bmc_mac IS NULL DO UPDATE SET" INVENTORY_DISCOVERY_REFRESH
    " RETURNING " INVENTORY_DISCOVERY_COLUMNS ", d.xmax = 0"};

constexpr Query kSelectDiscovery{"select_discovery", "SELECT " INVENTORY_DISCOVERY_COLUMNS
                                                     " FROM bmc_discoveries d WHERE d.id = $1"};
constexpr Query kSelectDiscoveryPage{"select_discovery_page",
                                     "SELECT " INVENTORY_DISCOVERY_COLUMNS
                                     " FROM bmc_discoveries d WHERE d.id > $1::bigint"
                                     " ORDER BY d.id LIMIT $2"};
// The MAC is only filled in (never replaced): a row found by address learns it once.
constexpr Query kLinkDiscoveryToNode{
    "link_discovery_to_node",
    "UPDATE bmc_discoveries SET node_id = $2,"
    " bmc_mac = CASE WHEN bmc_mac IS NULL AND $3::text IS NOT NULL"
    "   AND NOT EXISTS (SELECT 1 FROM bmc_discoveries m WHERE m.bmc_mac = $3)"
    "   THEN $3 ELSE bmc_mac END"
    " WHERE id = $1 RETURNING id"};

constexpr Query kInsertSweep{"insert_sweep",
                             "INSERT INTO discovery_sweeps AS s (cidr, scheme, port, addresses,"
                             " site, rack, requested_by) VALUES ($1, $2, $3, $4, $5, $6, $7)"
                             " RETURNING " INVENTORY_SWEEP_COLUMNS};
constexpr Query kUpdateSweepProgress{
    "update_sweep_progress",
    "UPDATE discovery_sweeps SET probed = $2, found = $3 WHERE id = $1 RETURNING id"};
constexpr Query kFinishSweep{"finish_sweep",
                             "UPDATE discovery_sweeps s SET state = $2, error = $3,"
                             " finished_at = now() WHERE s.id = $1"
                             " RETURNING " INVENTORY_SWEEP_COLUMNS};
constexpr Query kSelectSweep{
    "select_sweep", "SELECT " INVENTORY_SWEEP_COLUMNS " FROM discovery_sweeps s WHERE s.id = $1"};

// Event subscription tokens (node_bmc_credentials.event_token_hash).
constexpr Query kSetBmcEventTokenHash{
    "set_bmc_event_token_hash",
    "UPDATE node_bmc_credentials SET event_token_hash = $2, updated_at = now()"
    " WHERE node_id = $1 RETURNING node_id"};
constexpr Query kNodeForBmcEventToken{
    "node_for_bmc_event_token",
    "SELECT node_id FROM node_bmc_credentials"
    " WHERE node_id = $1 AND event_token_hash = $2 AND event_token_hash <> ''"};

}  // namespace inventory::detail
