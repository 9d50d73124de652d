// What each node's BMC reports in its FirmwareInventory: the current set (replaced by every
// successful read), the history of version changes, and whether the last read worked; plus the
// fleet read the compliance report is computed from.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct FirmwareObservation {
  std::string path;  // the member's @odata.id; required, unique per read
  std::string member_id, name, software_id, version;
  bool updateable = false;
};

struct ObservedFirmware {
  FirmwareObservation member;
  Timestamp observed_at;
};

struct NodeFirmwareState {
  std::optional<Timestamp> observed_at;   // last successful read; nullopt: never
  std::optional<Timestamp> attempted_at;  // last attempt
  bool reachable = true;                  // false: the last attempt failed
  std::string reason;                     // why it failed
};

struct NodeFirmware {
  Id node_id = 0;
  NodeFirmwareState state;
  std::vector<ObservedFirmware> members;  // by path
};

struct FirmwareHistoryEntry {
  Id id = 0;
  Id node_id = 0;
  FirmwareObservation member;
  std::optional<std::string> previous_version;  // nullopt: first sighting
  Timestamp observed_at;
};

struct FirmwareRecordOutcome {
  int members = 0;
  int changed = 0;  // history rows written: first sightings and version changes
  int removed = 0;  // members no longer reported
};

// Replaces the node's current set with `members` in one transaction, marks the node reachable
// as of `observed_at` (ISO 8601), and appends history only for new members and changed
// versions. InvalidArgument "invalid_field" for a member without path or a path twice;
// NotFound "node_not_found".
common::Result<FirmwareRecordOutcome> recordNodeFirmware(
    Database& db, Id node_id, const std::vector<FirmwareObservation>& members,
    const Timestamp& observed_at);
// The last attempt failed: the current set stays (as of its observed_at), marked unreachable.
common::Result<void> markNodeFirmwareUnreachable(Database& db, Id node_id, const Timestamp& at,
                                                 const std::string& reason);
common::Result<NodeFirmware> getNodeFirmware(Database& db, Id node_id);
// Newest first, at most `limit`.
common::Result<std::vector<FirmwareHistoryEntry>> nodeFirmwareHistory(Database& db, Id node_id,
                                                                      int limit = 200);

// One node as the compliance report needs it.
struct NodeFirmwareRow {
  Id node_id = 0;
  std::string chassis_serial, model, site, rack, state;
  std::map<std::string, std::string> labels;
  std::string profile_baseline;  // the baseline its hardware profile names ("" none)
  NodeFirmwareState firmware;
  std::vector<FirmwareObservation> members;
};
struct FirmwareFleetFilter {
  std::string site, rack, model;  // "" matches all
};
// Every node but retired ones, by id.
common::Result<std::vector<NodeFirmwareRow>> listFleetFirmware(Database& db,
                                                               const FirmwareFleetFilter& filter);

}  // namespace inventory
