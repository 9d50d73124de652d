// reportComponents: turns a full report of what a node holds into appended history.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "db.hpp"
#include "inventory/nodes.hpp"
#include "node_rows.hpp"
#include "queries_components.hpp"
#include "queries_nodes.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

common::Result<void> validateReport(const ComponentReport& r) {
  if (r.reason != "inventory" && r.reason != "rma") {
    return common::invalidArgument("invalid_reason", "reason must be inventory or rma", "reason");
  }
  if (r.reason == "rma" && r.rma_ticket.empty()) {
    return common::invalidArgument("missing_field", "an RMA report needs its ticket", "rma_ticket");
  }
  std::set<std::string> serials;
  for (std::size_t i = 0; i < r.components.size(); ++i) {
    const auto& c = r.components[i];
    std::string at = "components[" + std::to_string(i) + "].";
    if (c.serial.empty()) {
      return common::invalidArgument("missing_field", "serial is required", at + "serial");
    }
    if (!isComponentKind(c.kind)) {
      return common::invalidArgument("invalid_kind", "unknown component kind " + c.kind,
                                     at + "kind");
    }
    if (!serials.insert(c.serial).second) {
      return common::invalidArgument("duplicate_serial",
                                     "serial " + c.serial + " is reported twice", at + "serial");
    }
  }
  return common::success();
}

// One report being applied to one node, inside one transaction.
class ReportWriter {
 public:
  ReportWriter(Tx& tx, Id node_id, std::string node_serial, const ComponentReport& report)
      : tx_(tx), node_id_(node_id), node_serial_(std::move(node_serial)), report_(report) {}

  void apply() {
    auto before = tx_.exec(detail::kSelectOpenPlacementsOfNode, node_id_);
    // Serial order keeps row locks in one order across concurrent reports (no deadlocks).
    std::vector<const ObservedComponent*> observed;
    for (const auto& c : report_.components) observed.push_back(&c);
    std::sort(observed.begin(), observed.end(),
              [](const auto* a, const auto* b) { return a->serial < b->serial; });
    nlohmann::json serials = nlohmann::json::array();
    for (const auto* c : observed) serials.push_back(c->serial);
    // One locking read for the whole report; parts never seen go in with one statement.
    auto known = tx_.exec(detail::kSelectComponentsForUpdate, serials.dump());
    std::map<std::string, pqxx::row> by_serial;
    for (const auto& row : known) by_serial.emplace(row[6].c_str(), row);
    nlohmann::json fresh = nlohmann::json::array();
    for (const auto* c : observed) {
      auto it = by_serial.find(c->serial);
      if (it != by_serial.end()) {
        record(*c, it->second);
      } else {
        fresh.push_back({{"serial", c->serial},
                         {"kind", c->kind},
                         {"manufacturer", c->manufacturer},
                         {"model", c->model},
                         {"part_number", c->part_number},
                         {"firmware_version", c->firmware_version},
                         {"slot", c->slot}});
      }
    }
    installNew(fresh);
    for (const auto& row : before) {
      if (reported_.count(detail::id(row[1])) != 0) continue;
      tx_.exec(detail::kClosePlacement, detail::id(row[0]), report_.reason, report_.rma_ticket);
      std::string kind = row[3].c_str();
      std::string serial = row[2].c_str();
      std::string slot = row[4].c_str();
      std::string why = report_.reason +
                        (report_.rma_ticket.empty() ? "" : " (ticket " + report_.rma_ticket + ")");
      event("component_removed", kind + " " + serial + " removed from " + slot + ": " + why,
            detail::JsonObject()
                .add("serial", serial)
                .add("kind", kind)
                .add("slot", slot)
                .add("reason", report_.reason)
                .add("rma_ticket", report_.rma_ticket)
                .str());
      ++outcome_.removed;
    }
    if (changed_) tx_.exec(detail::kTouchNode, node_id_);
    tx_.exec(detail::kMarkComponentsReported, node_id_);
  }

  const ComponentReportOutcome& outcome() const { return outcome_; }

 private:
  void installNew(const nlohmann::json& fresh) {
    if (fresh.empty()) return;
    tx_.exec(detail::kInstallNewComponents, node_id_, fresh.dump(), report_.actor);
    outcome_.installed += static_cast<int>(fresh.size());
    changed_ = true;
  }

  // A part the inventory knows: `row` from kSelectComponentsForUpdate.
  void record(const ObservedComponent& c, const pqxx::row& row) {
    Id component_id = detail::id(row[0]);
    reported_.insert(component_id);
    std::string firmware = row[1].c_str();
    tx_.exec(detail::kUpdateComponentFacts, component_id, c.kind, c.manufacturer, c.model,
             c.part_number);
    bool placed_here = false;
    if (row[2].is_null()) {
      install(component_id, c, std::nullopt, "");  // back from RMA or a shelf
    } else if (detail::id(row[3]) != node_id_) {
      Id from_node = detail::id(row[3]);
      std::string from_serial = row[5].c_str();
      tx_.exec(detail::kClosePlacement, detail::id(row[2]), "moved", "");
      detail::insertEvent(tx_, from_node, report_.actor, "component_removed",
                          c.kind + " " + c.serial + " removed from " + row[4].c_str() +
                              ": moved to node " + node_serial_,
                          detail::JsonObject()
                              .add("serial", c.serial)
                              .add("kind", c.kind)
                              .add("slot", row[4].c_str())
                              .add("reason", "moved")
                              .add("to_node_id", node_id_)
                              .str());
      install(component_id, c, from_node, from_serial);
    } else if (c.slot != row[4].c_str()) {
      // Re-seated in another slot of this node: close the old placement, open the new one.
      tx_.exec(detail::kClosePlacement, detail::id(row[2]), "moved", "");
      tx_.exec(detail::kInsertPlacement, component_id, node_id_, c.slot);
      event("component_moved",
            c.kind + " " + c.serial + " moved from " + row[4].c_str() + " to " + c.slot,
            detail::JsonObject()
                .add("serial", c.serial)
                .add("from_slot", row[4].c_str())
                .add("to_slot", c.slot)
                .str());
    } else {
      placed_here = true;
    }
    bool firmware_changed = !c.firmware_version.empty() && c.firmware_version != firmware;
    if (firmware_changed) {
      tx_.exec(detail::kSetComponentFirmware, component_id, c.firmware_version);
      tx_.exec(detail::kInsertFirmware, component_id, node_id_, c.firmware_version);
      event("firmware_changed",
            c.kind + " " + c.serial + " firmware " + firmware + " -> " + c.firmware_version,
            detail::JsonObject()
                .add("serial", c.serial)
                .add("from_version", firmware)
                .add("to_version", c.firmware_version)
                .str());
      ++outcome_.firmware_changed;
    }
    if (placed_here && !firmware_changed) ++outcome_.unchanged;
  }

  void install(Id component_id, const ObservedComponent& c, std::optional<Id> from_node,
               const std::string& from_serial) {
    tx_.exec(detail::kInsertPlacement, component_id, node_id_, c.slot);
    detail::JsonObject detail_json;
    detail_json.add("serial", c.serial).add("kind", c.kind).add("slot", c.slot);
    std::string message = c.kind + " " + c.serial + " installed in " + c.slot;
    if (from_node) {
      detail_json.add("from_node_id", *from_node);
      message += " (moved from node " + from_serial + ")";
      ++outcome_.moved_in;
    }
    event("component_installed", message, detail_json.str());
    ++outcome_.installed;
  }

  void event(const std::string& kind, const std::string& message, const std::string& detail_json) {
    detail::insertEvent(tx_, node_id_, report_.actor, kind, message, detail_json);
    changed_ = true;
  }

  Tx& tx_;
  Id node_id_;
  std::string node_serial_;
  const ComponentReport& report_;
  ComponentReportOutcome outcome_;
  std::set<Id> reported_;
  bool changed_ = false;
};

}  // namespace

common::Result<ComponentReportOutcome> reportComponents(Database& db, Id node_id,
                                                        const ComponentReport& report) {
  PROV_TRY(validateReport(report));
  return detail::withTransaction(db, "report_components",
                                 [&](Tx& tx) -> common::Result<ComponentReportOutcome> {
                                   auto node = tx.exec(detail::kLockNode, node_id);
                                   if (node.empty()) return detail::nodeNotFound(node_id);
                                   ReportWriter writer(tx, node_id, node[0][1].c_str(), report);
                                   writer.apply();
                                   return writer.outcome();
                                 });
}

}  // namespace inventory
