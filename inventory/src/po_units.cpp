#include <map>
#include <set>

#include "po_internal.hpp"
#include "queries_purchase_orders.hpp"
#include "values.hpp"

namespace inventory::detail {
namespace {

std::string indexed(std::string_view list, std::size_t i, std::string_view field) {
  return std::string(list) + "[" + std::to_string(i) + "]." + std::string(field);
}

common::Error missing(std::string what, std::string field) {
  return common::invalidArgument("missing_field", what + " is required", std::move(field));
}

}  // namespace

std::string unitField(const ExpectedAssetSpec& unit, std::size_t position, std::string_view list,
                      std::string_view field) {
  if (unit.source_line) return "line " + std::to_string(*unit.source_line);
  std::size_t i = unit.source_index ? static_cast<std::size_t>(*unit.source_index) : position;
  return indexed(list, i, field);
}

common::Result<std::vector<ExpectedAssetSpec>> normaliseUnits(
    const std::vector<ExpectedAssetSpec>& units, std::string_view list, bool updates) {
  std::vector<ExpectedAssetSpec> out = units;
  for (std::size_t i = 0; i < out.size(); ++i) {
    ExpectedAssetSpec& u = out[i];
    auto field = [&](std::string_view f) { return unitField(u, i, list, f); };
    if (u.chassis_serial.empty()) return missing("chassis_serial", field("chassis_serial"));
    if (!updates && u.model.empty()) return missing("model", field("model"));
    auto mac = normalizeMac(u.bmc_mac);
    if (!mac) {
      return common::invalidArgument("invalid_bmc_mac", "bmc_mac " + u.bmc_mac + " is not a MAC",
                                     field("bmc_mac"));
    }
    u.bmc_mac = *mac;
    if (u.gpu_count && *u.gpu_count < 0) {
      return common::invalidArgument("invalid_field", "gpu_count must not be negative",
                                     field("gpu_count"));
    }
    if (u.u_position && *u.u_position < 1) {
      return common::invalidArgument("invalid_u_position", "u_position must be at least 1",
                                     field("u_position"));
    }
    if (u.line_no && *u.line_no < 1) {
      return common::invalidArgument("invalid_field", "line_no must be at least 1",
                                     field("line_no"));
    }
  }
  return out;
}

common::Result<void> validateLineItems(const std::vector<LineItem>& items, std::string_view list) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const LineItem& item = items[i];
    if (item.line_no < 1) {
      return common::invalidArgument("invalid_field", "line_no must be at least 1",
                                     indexed(list, i, "line_no"));
    }
    if (item.quantity < 0) {
      return common::invalidArgument("invalid_field", "quantity must not be negative",
                                     indexed(list, i, "quantity"));
    }
    if (item.gpu_count && *item.gpu_count < 0) {
      return common::invalidArgument("invalid_field", "gpu_count must not be negative",
                                     indexed(list, i, "gpu_count"));
    }
  }
  return common::success();
}

common::Result<void> checkRequestDuplicates(std::initializer_list<UnitList> lists) {
  std::map<std::string, std::string> serials;  // value -> field of its first unit
  std::map<std::string, std::string> macs;
  for (const UnitList& list : lists) {
    for (std::size_t i = 0; i < list.units.size(); ++i) {
      const auto& u = list.units[i];
      if (!list.updates) {
        std::string field = unitField(u, i, list.name, "chassis_serial");
        auto [it, fresh] = serials.emplace(u.chassis_serial, field);
        if (!fresh) {
          return common::conflict("duplicate_serial",
                                  "chassis serial " + u.chassis_serial +
                                      " appears twice in the request (also at " + it->second + ")",
                                  field);
        }
      }
      if (u.bmc_mac.empty()) continue;
      std::string field = unitField(u, i, list.name, "bmc_mac");
      auto [it, fresh] = macs.emplace(u.bmc_mac, field);
      if (!fresh) {
        return common::conflict(
            "duplicate_bmc_mac",
            "BMC MAC " + u.bmc_mac + " appears twice in the request (also at " + it->second + ")",
            field);
      }
    }
  }
  return common::success();
}

common::Result<void> checkStoredDuplicates(Tx& tx, const UnitList& list) {
  if (list.units.empty()) return common::success();
  std::vector<std::string> serials;
  std::vector<std::string> macs;
  for (const auto& u : list.units) {
    if (!list.updates) serials.push_back(u.chassis_serial);
    if (!u.bmc_mac.empty()) macs.push_back(u.bmc_mac);
  }
  struct Stored {
    std::string serial;
    std::string po_number;
  };
  std::map<std::string, std::string> po_of_serial;
  std::map<std::string, Stored> owner_of_mac;
  for (const auto& row : tx.exec(kSelectAssetConflicts, textArray(serials), textArray(macs))) {
    po_of_serial[row[0].c_str()] = row[2].c_str();
    if (!row[1].is_null() && *row[1].c_str() != '\0') {
      owner_of_mac[row[1].c_str()] = Stored{row[0].c_str(), row[2].c_str()};
    }
  }
  for (std::size_t i = 0; i < list.units.size(); ++i) {
    const auto& u = list.units[i];
    if (auto it = po_of_serial.find(u.chassis_serial); !list.updates && it != po_of_serial.end()) {
      return common::conflict("duplicate_serial",
                              "chassis serial " + u.chassis_serial + " is already on " + it->second,
                              unitField(u, i, list.name, "chassis_serial"));
    }
    auto it = owner_of_mac.find(u.bmc_mac);
    if (!u.bmc_mac.empty() && it != owner_of_mac.end() && it->second.serial != u.chassis_serial) {
      return common::conflict("duplicate_bmc_mac",
                              "BMC MAC " + u.bmc_mac + " is already on " + it->second.po_number +
                                  " (unit " + it->second.serial + ")",
                              unitField(u, i, list.name, "bmc_mac"));
    }
  }
  return common::success();
}

common::Result<void> checkLineNumbers(Tx& tx, Id po_id, const std::vector<LineItem>& items,
                                      std::string_view list) {
  std::set<int> stored;
  if (po_id != 0 && !items.empty()) {
    for (const auto& row : tx.exec(kSelectLineNos, po_id)) stored.insert(row[0].as<int>());
  }
  std::set<int> requested;
  for (std::size_t i = 0; i < items.size(); ++i) {
    int line_no = items[i].line_no;
    bool on_po = stored.count(line_no) != 0;
    if (on_po || !requested.insert(line_no).second) {
      return common::conflict(
          "duplicate_line_item",
          "line " + std::to_string(line_no) +
              (on_po ? " is already on the purchase order" : " appears twice in the request"),
          indexed(list, i, "line_no"));
    }
  }
  return common::success();
}

void insertLineItems(Tx& tx, Id po_id, const std::vector<LineItem>& items) {
  for (const auto& item : items) {
    tx.exec(kInsertLineItem, po_id, item.line_no, item.model, item.quantity, item.gpu_count,
            item.description);
  }
}

common::Result<void> insertUnits(Tx& tx, const common::SecretBox& box, Id po_id,
                                 const std::vector<ExpectedAssetSpec>& units) {
  for (const auto& u : units) {
    std::optional<std::string> sealed;
    if (!u.factory_password.empty()) {
      auto s = box.seal(u.factory_password);
      if (!s) return common::fail(std::move(s).error());
      sealed = std::move(s).value();
    }
    tx.exec(kInsertExpectedAsset, po_id, u.chassis_serial, nullIfEmpty(u.bmc_mac), u.model,
            u.gpu_count, u.rack, u.u_position, u.line_no, u.factory_username, sealed);
  }
  return common::success();
}

}  // namespace inventory::detail
