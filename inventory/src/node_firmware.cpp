// Firmware observations: the current set per node, its history, and reachability.
#include "inventory/node_firmware.hpp"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "db.hpp"
#include "node_rows.hpp"
#include "queries_node_firmware.hpp"
#include "queries_nodes.hpp"

namespace inventory {
namespace {

using detail::Tx;
using nlohmann::json;

common::Result<void> checkMembers(const std::vector<FirmwareObservation>& members) {
  std::set<std::string> paths;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::string field = "members[" + std::to_string(i) + "].path";
    if (members[i].path.empty()) {
      return common::invalidArgument("invalid_field", field + " is required", field);
    }
    if (!paths.insert(members[i].path).second) {
      return common::invalidArgument("invalid_field", field + " repeats " + members[i].path, field);
    }
  }
  return common::success();
}

json memberJson(const FirmwareObservation& m) {
  return {{"path", m.path},       {"member_id", m.member_id},
          {"name", m.name},       {"software_id", m.software_id},
          {"version", m.version}, {"updateable", m.updateable}};
}

std::optional<Timestamp> optText(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<Timestamp>(f.c_str());
}

NodeFirmwareState stateFromRow(const pqxx::row& row, int first) {
  NodeFirmwareState s;
  s.observed_at = optText(row[first]);
  s.attempted_at = optText(row[first + 1]);
  s.reachable = row[first + 2].as<bool>();
  s.reason = row[first + 3].c_str();
  return s;
}

common::Result<void> requireNode(Tx& tx, Id node_id) {
  if (tx.exec(detail::kNodeExists, node_id).empty()) return detail::nodeNotFound(node_id);
  return common::success();
}

}  // namespace

common::Result<FirmwareRecordOutcome> recordNodeFirmware(
    Database& db, Id node_id, const std::vector<FirmwareObservation>& members,
    const Timestamp& observed_at) {
  PROV_TRY(checkMembers(members));
  using Out = FirmwareRecordOutcome;
  return detail::withTransaction(db, "record_node_firmware", [&](Tx& tx) -> common::Result<Out> {
    PROV_TRY(requireNode(tx, node_id));
    std::map<std::string, std::string> before;
    for (const auto& row : tx.exec(detail::kSelectNodeFirmwareForUpdate, node_id)) {
      before.emplace(row[0].c_str(), row[1].c_str());
    }
    Out out;
    out.members = static_cast<int>(members.size());
    json current = json::array();
    json history = json::array();
    for (const auto& m : members) {
      current.push_back(memberJson(m));
      auto it = before.find(m.path);
      if (it != before.end() && it->second == m.version) continue;
      json h = memberJson(m);
      h.erase("updateable");
      h["previous_version"] = it == before.end() ? json(nullptr) : json(it->second);
      history.push_back(std::move(h));
    }
    for (const auto& [path, version] : before) {
      bool still = false;
      for (const auto& m : members) still = still || m.path == path;
      out.removed += still ? 0 : 1;
    }
    out.changed = static_cast<int>(history.size());
    tx.exec(detail::kDeleteNodeFirmware, node_id);
    if (!members.empty())
      tx.exec(detail::kInsertNodeFirmware, node_id, current.dump(), observed_at);
    if (!history.empty()) {
      tx.exec(detail::kInsertFirmwareHistory, node_id, history.dump(), observed_at);
    }
    tx.exec(detail::kUpsertFirmwareObserved, node_id, observed_at);
    return out;
  });
}

common::Result<void> markNodeFirmwareUnreachable(Database& db, Id node_id, const Timestamp& at,
                                                 const std::string& reason) {
  return detail::withTransaction(
      db, "mark_node_firmware_unreachable", [&](Tx& tx) -> common::Result<void> {
        PROV_TRY(requireNode(tx, node_id));
        tx.exec(detail::kUpsertFirmwareUnreachable, node_id, at, reason.substr(0, 1024));
        return common::success();
      });
}

common::Result<NodeFirmware> getNodeFirmware(Database& db, Id node_id) {
  return detail::withTransaction(
      db, "get_node_firmware", [&](Tx& tx) -> common::Result<NodeFirmware> {
        PROV_TRY(requireNode(tx, node_id));
        NodeFirmware out;
        out.node_id = node_id;
        auto state = tx.exec(detail::kSelectFirmwareStatus, node_id);
        if (!state.empty()) out.state = stateFromRow(state[0], 0);
        for (const auto& row : tx.exec(detail::kSelectNodeFirmware, node_id)) {
          ObservedFirmware f;
          f.member = {row[0].c_str(), row[1].c_str(), row[2].c_str(),
                      row[3].c_str(), row[4].c_str(), row[5].as<bool>()};
          f.observed_at = row[6].c_str();
          out.members.push_back(std::move(f));
        }
        return out;
      });
}

common::Result<std::vector<FirmwareHistoryEntry>> nodeFirmwareHistory(Database& db, Id node_id,
                                                                      int limit) {
  using Out = std::vector<FirmwareHistoryEntry>;
  return detail::withTransaction(db, "node_firmware_history", [&](Tx& tx) -> common::Result<Out> {
    PROV_TRY(requireNode(tx, node_id));
    Out out;
    for (const auto& row : tx.exec(detail::kSelectFirmwareHistory, node_id, limit)) {
      FirmwareHistoryEntry e;
      e.id = detail::id(row[0]);
      e.node_id = detail::id(row[1]);
      e.member = {row[2].c_str(), row[3].c_str(), row[4].c_str(),
                  row[5].c_str(), row[6].c_str(), false};
      e.previous_version = optText(row[7]);
      e.observed_at = row[8].c_str();
      out.push_back(std::move(e));
    }
    return out;
  });
}

common::Result<std::vector<NodeFirmwareRow>> listFleetFirmware(Database& db,
                                                               const FirmwareFleetFilter& f) {
  using Out = std::vector<NodeFirmwareRow>;
  // One snapshot: the members agree with the nodes.
  return detail::withTransaction(db, "list_fleet_firmware", [&](Tx& tx) -> common::Result<Out> {
    Out out;
    std::map<Id, std::size_t> index;
    for (const auto& row : tx.exec(detail::kSelectFleetFirmwareNodes, f.site, f.rack, f.model)) {
      NodeFirmwareRow n;
      n.node_id = detail::id(row[0]);
      n.chassis_serial = row[1].c_str();
      n.model = row[2].c_str();
      n.site = row[3].c_str();
      n.rack = row[4].c_str();
      n.state = row[5].c_str();
      n.labels = detail::labelsFromText(row[6].c_str());
      n.profile_baseline = row[7].c_str();
      n.firmware = stateFromRow(row, 8);
      index[n.node_id] = out.size();
      out.push_back(std::move(n));
    }
    for (const auto& row : tx.exec(detail::kSelectFleetFirmwareMembers, f.site, f.rack, f.model)) {
      auto it = index.find(detail::id(row[0]));
      if (it == index.end()) continue;
      out[it->second].members.push_back({row[1].c_str(), row[2].c_str(), row[3].c_str(),
                                         row[4].c_str(), row[5].c_str(), row[6].as<bool>()});
    }
    return out;
  });
}

}  // namespace inventory
