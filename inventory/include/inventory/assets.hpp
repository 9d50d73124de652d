// Asset lookup by any serial: a node's chassis, a component, or a unit still on order.
#pragma once

#include <optional>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct AssetLocation {
  std::string site;
  std::string room;
  std::string row;
  std::string rack;
  std::optional<int> u_position;
  std::optional<Id> node_id;
  std::string node_serial;
  std::string slot;  // for a component
};

struct AssetHistoryEntry {
  Timestamp at;
  std::string event;  // "installed", "removed", "firmware_changed", "ordered", "registered"
  std::optional<Id> node_id;
  std::string node_serial;
  std::string slot;
  std::string from_version;
  std::string to_version;
  std::string reason;  // "inventory", "moved", "rma", RMA ticket ...
};

struct Asset {
  std::string serial;
  std::string asset_type;  // "node", "component", "expected" (ordered, not yet seen)
  std::string kind;        // component kind, or "node"
  std::string manufacturer;
  std::string model;
  std::string part_number;
  std::string state;  // node state; for a component that of its node, or "removed"
  std::string firmware_version;
  AssetLocation location;
  std::string po_number;                   // when the serial is on a purchase order
  std::vector<Component> components;       // for a node
  std::vector<AssetHistoryEntry> history;  // oldest first
};

// NotFound "asset_not_found" when the serial is nowhere.
common::Result<Asset> lookupAsset(Database& db, const std::string& serial);

}  // namespace inventory
