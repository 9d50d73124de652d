// Purchase orders, their line items and the expected assets (units procurement says will arrive).
#pragma once

#include <optional>

#include "common/result.hpp"
#include "common/secret_box.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct LineItem {
  int line_no = 0;  // 1-based, unique in the PO
  std::string model;
  int quantity = 0;
  std::optional<int> gpu_count;  // GPUs per unit
  std::string description;
};

struct ExpectedAssetSpec {
  std::string chassis_serial;  // required, unique across all POs
  std::string model;           // required
  std::string bmc_mac;         // normalised aa:bb:cc:dd:ee:ff; unique across all POs when set
  std::string factory_username;
  std::string factory_password;  // sealed with the SecretBox before it is stored
  std::optional<int> gpu_count;
  std::string rack;  // destination rack name
  std::optional<int> u_position;
  std::optional<int> line_no;
  // Where the unit came from, for error messages: the CSV line number, else the array index.
  std::optional<int> source_line;
  std::optional<int> source_index;
};

struct ExpectedAsset {
  Id id = 0;
  std::string chassis_serial;
  std::string model;
  std::string bmc_mac;
  std::string factory_username;
  bool has_factory_password = false;  // the password itself never leaves the inventory
  std::optional<int> gpu_count;
  std::string rack;
  std::optional<int> u_position;
  std::optional<int> line_no;
};

struct PurchaseOrderSpec {
  std::string po_number;  // required, unique
  std::string vendor;     // required
  std::vector<LineItem> line_items;
  std::vector<ExpectedAssetSpec> assets;
};

struct PurchaseOrderSummary {
  Id id = 0;
  std::string po_number;
  std::string vendor;
  std::string status;  // "open", "closed", "cancelled"
  int asset_count = 0;
  Timestamp created_at;
  Timestamp updated_at;
};

struct PurchaseOrder {
  PurchaseOrderSummary summary;
  std::vector<LineItem> line_items;
  std::vector<ExpectedAsset> assets;
};

struct PurchaseOrderAmendment {
  std::optional<std::string> vendor;
  std::optional<std::string> status;
  std::vector<LineItem> add_line_items;
  std::vector<ExpectedAssetSpec> add_assets;
  std::vector<ExpectedAssetSpec> update_assets;  // matched by chassis_serial; empty fields kept
  std::vector<std::string> remove_serials;
};

// All-or-nothing: a duplicate serial or MAC anywhere is Conflict "duplicate_serial" /
// "duplicate_bmc_mac" naming the unit ("line 7" from source_line, else "assets[3].chassis_serial"),
// and nothing is stored.
common::Result<PurchaseOrder> createPurchaseOrder(Database& db, const common::SecretBox& box,
                                                  const PurchaseOrderSpec& spec);
// An advance ship notice: creates the PO when new, else adds the units to it. All-or-nothing.
common::Result<PurchaseOrder> importShipNotice(Database& db, const common::SecretBox& box,
                                               const PurchaseOrderSpec& spec);
common::Result<PurchaseOrder> amendPurchaseOrder(Database& db, const common::SecretBox& box,
                                                 const std::string& po_number,
                                                 const PurchaseOrderAmendment& amendment);
common::Result<PurchaseOrder> getPurchaseOrder(Database& db, const std::string& po_number);
common::Result<Page<PurchaseOrderSummary>> listPurchaseOrders(Database& db, PageRequest page);

struct FactoryCredentials {
  std::string username;
  std::string password;
};
// The factory BMC credentials of a unit, decrypted (for the claim step; never for the API).
common::Result<FactoryCredentials> factoryCredentials(Database& db, const common::SecretBox& box,
                                                      const std::string& chassis_serial);

// A unit on order with the number of its purchase order; gpu_count falls back to its line item's.
struct ExpectedUnit {
  ExpectedAsset asset;
  std::string po_number;
};
// The unit on order whose BMC MAC (normalised) or chassis serial this is; nullopt when none
// (the lifecycle's match step).
common::Result<std::optional<ExpectedUnit>> expectedUnitByBmcMac(Database& db,
                                                                 const std::string& bmc_mac);
common::Result<std::optional<ExpectedUnit>> expectedUnitBySerial(Database& db,
                                                                 const std::string& chassis_serial);

struct Mismatch {
  std::string field;  // "chassis_serial", "model", "gpu_count", "rack", "u_position", "bmc_mac"
  std::string expected;
  std::string actual;
};

struct ReconciledUnit {
  std::string chassis_serial;  // as ordered
  std::optional<Id> node_id;
  std::string node_serial;  // as found (differs when matched by BMC MAC only)
  std::vector<Mismatch> mismatches;
  // Ordered fields that could not be compared yet: "gpu_count" while the node has never been
  // inspected (no components reported), which is not the same as 0 GPUs.
  std::vector<std::string> unchecked;
};

// Expected vs received: each expected unit is matched to a node by chassis serial, else by BMC
// MAC. Unexpected: nodes in the PO's destination racks that match none of its units.
struct Reconciliation {
  std::string po_number;
  int expected = 0;
  std::vector<ReconciledUnit> received;    // found and all fields agree
  std::vector<ReconciledUnit> mismatched;  // found but some field differs
  std::vector<ReconciledUnit> missing;     // not found
  std::vector<Node> unexpected;
};
common::Result<Reconciliation> reconcile(Database& db, const std::string& po_number);

}  // namespace inventory
