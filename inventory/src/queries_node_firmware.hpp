// SQL of firmware observations (0005).
#pragma once

#include "db.hpp"

#define INVENTORY_FIRMWARE_MEMBER_COLUMNS \
  "path, member_id, name, software_id, version, updateable, iso8601(observed_at)"

namespace inventory::detail {

constexpr Query kSelectNodeFirmwareForUpdate{
    "select_node_firmware_for_update",
    "SELECT path, version FROM node_firmware WHERE node_id = $1 FOR UPDATE"};
constexpr Query kDeleteNodeFirmware{"delete_node_firmware",
                                    "DELETE FROM node_firmware WHERE node_id = $1"};
// The members arrive as one JSON array: one round trip however many members a BMC has.
constexpr Query kInsertNodeFirmware{
    "insert_node_firmware",
    "INSERT INTO node_firmware (node_id, path, member_id, name, software_id, version, updateable,"
    " observed_at)"
    " SELECT $1, m.path, m.member_id, m.name, m.software_id, m.version, m.updateable,"
    " $3::timestamptz"
    " FROM jsonb_to_recordset($2::jsonb) AS m(path text, member_id text, name text,"
    " software_id text, version text, updateable boolean)"};
constexpr Query kInsertFirmwareHistory{
    "insert_node_firmware_history",
    "INSERT INTO node_firmware_history (node_id, path, member_id, name, software_id, version,"
    " previous_version, observed_at)"
    " SELECT $1, m.path, m.member_id, m.name, m.software_id, m.version, m.previous_version,"
    " $3::timestamptz"
    " FROM jsonb_to_recordset($2::jsonb) AS m(path text, member_id text, name text,"
    " software_id text, version text, previous_version text)"};
constexpr Query kUpsertFirmwareObserved{
    "upsert_node_firmware_observed",
    "INSERT INTO node_firmware_status (node_id, observed_at, attempted_at, reachable, reason)"
    " VALUES ($1, $2::timestamptz, $2::timestamptz, true, '')"
    " ON CONFLICT (node_id) DO UPDATE SET observed_at = EXCLUDED.observed_at,"
    " attempted_at = EXCLUDED.attempted_at, reachable = true, reason = ''"};
constexpr Query kUpsertFirmwareUnreachable{
    "upsert_node_firmware_unreachable",
    "INSERT INTO node_firmware_status (node_id, observed_at, attempted_at, reachable, reason)"
    " VALUES ($1, NULL, $2::timestamptz, false, $3)"
    " ON CONFLICT (node_id) DO UPDATE SET attempted_at = EXCLUDED.attempted_at,"
    " reachable = false, reason = EXCLUDED.reason"};
constexpr Query kSelectFirmwareStatus{
    "select_node_firmware_status",
    "SELECT iso8601(observed_at), iso8601(attempted_at), reachable, reason"
    " FROM node_firmware_status WHERE node_id = $1"};
constexpr Query kSelectNodeFirmware{"select_node_firmware",
                                    "SELECT " INVENTORY_FIRMWARE_MEMBER_COLUMNS
                                    " FROM node_firmware WHERE node_id = $1 ORDER BY path"};
constexpr Query kSelectFirmwareHistory{
    "select_node_firmware_history",
    "SELECT id, node_id, path, member_id, name, software_id, version, previous_version,"
    " iso8601(observed_at) FROM node_firmware_history WHERE node_id = $1"
    " ORDER BY id DESC LIMIT $2"};
// Every node but retired ones with its profile's baseline and firmware status.
constexpr Query kSelectFleetFirmwareNodes{
    "select_fleet_firmware_nodes",
    "SELECT v.id, v.chassis_serial, v.hardware_model, v.site, v.rack, v.state, v.labels::text,"
    " coalesce(p.baseline, ''), iso8601(s.observed_at), iso8601(s.attempted_at),"
    " coalesce(s.reachable, true), coalesce(s.reason, '')"
    " FROM node_summary v"
    " LEFT JOIN hardware_profiles p ON p.model = v.hardware_model"
    " LEFT JOIN node_firmware_status s ON s.node_id = v.id"
    " WHERE v.state <> 'retired' AND ($1 = '' OR v.site = $1) AND ($2 = '' OR v.rack = $2)"
    " AND ($3 = '' OR v.hardware_model = $3) ORDER BY v.id"};
constexpr Query kSelectFleetFirmwareMembers{
    "select_fleet_firmware_members",
    "SELECT f.node_id, f.path, f.member_id, f.name, f.software_id, f.version, f.updateable"
    " FROM node_firmware f JOIN nodes n ON n.id = f.node_id"
    " LEFT JOIN racks r ON r.id = n.rack_id LEFT JOIN sites s ON s.id = r.site_id"
    " WHERE n.state <> 'retired' AND ($1 = '' OR s.name = $1) AND ($2 = '' OR r.name = $2)"
    " AND ($3 = '' OR n.hardware_model = $3) ORDER BY f.node_id, f.path"};

}  // namespace inventory::detail
