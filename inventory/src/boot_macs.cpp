// Boot MACs: which node a network-booting NIC belongs to.
#include <algorithm>

#include "agent_rows.hpp"
#include "db.hpp"
#include "inventory/agent_tasks.hpp"
#include "node_rows.hpp"
#include "queries_boot_macs.hpp"
#include "queries_nodes.hpp"
#include "values.hpp"

namespace inventory {
namespace detail {

common::Result<std::vector<BootMac>> normalizeBootMacs(const std::vector<std::string>& macs) {
  std::vector<BootMac> out;
  for (std::size_t i = 0; i < macs.size(); ++i) {
    auto mac = normalizeMac(macs[i]);
    if (!mac || mac->empty()) {
      return common::invalidArgument("invalid_mac", "a MAC must be 12 hex digits",
                                     "macs[" + std::to_string(i) + "]");
    }
    out.emplace_back(std::move(*mac), i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

common::Result<void> insertBootMacs(Tx& tx, Id node_id, const std::vector<BootMac>& macs,
                                    const std::string& source,
                                    std::vector<std::string>* conflicts) {
  for (const auto& [mac, index] : macs) {
    if (!tx.exec(kInsertBootMac, mac, node_id, source).empty()) continue;
    auto owner = tx.exec(kSelectBootMacNode, mac);
    if (!owner.empty() && id(owner[0][0]) != node_id) {
      if (conflicts != nullptr) {
        conflicts->push_back(mac + " (node " + std::to_string(id(owner[0][0])) + ")");
        continue;
      }
      return common::conflict("boot_mac_in_use", "MAC " + mac + " already boots another node",
                              "macs[" + std::to_string(index) + "]");
    }
  }
  return common::success();
}

}  // namespace detail

namespace {

using detail::Tx;

common::Result<void> validateSource(const std::string& source) {
  if (source != "operator" && source != "redfish" && source != "agent") {
    return common::invalidArgument("invalid_source", "source must be operator, redfish or agent",
                                   "source");
  }
  return common::success();
}

}  // namespace

common::Result<void> addBootMacs(Database& db, Id node_id, const std::vector<std::string>& macs,
                                 const std::string& source) {
  PROV_TRY(validateSource(source));
  PROV_ASSIGN(auto normalized, detail::normalizeBootMacs(macs));
  return detail::withTransaction(db, "add_boot_macs", [&](Tx& tx) -> common::Result<void> {
    if (tx.exec(detail::kNodeExists, node_id).empty()) return detail::nodeNotFound(node_id);
    return detail::insertBootMacs(tx, node_id, normalized, source);
  });
}

common::Result<std::vector<std::string>> listBootMacs(Database& db, Id node_id) {
  return detail::withRead(
      db, "list_boot_macs", [&](Tx& tx) -> common::Result<std::vector<std::string>> {
        if (tx.exec(detail::kSelectNodeExists, node_id).empty()) {
          return detail::nodeNotFound(node_id);
        }
        std::vector<std::string> macs;
        for (const auto& row : tx.exec(detail::kSelectBootMacsOfNode, node_id)) {
          macs.emplace_back(row[0].c_str());
        }
        return macs;
      });
}

common::Result<std::optional<Id>> nodeForBootMac(Database& db, const std::string& mac) {
  auto normalized = detail::normalizeMac(mac);
  if (!normalized || normalized->empty()) {
    return common::invalidArgument("invalid_mac", "a MAC must be 12 hex digits", "mac");
  }
  return detail::withRead(db, "node_for_boot_mac",
                          [&](Tx& tx) -> common::Result<std::optional<Id>> {
                            auto rows = tx.exec(detail::kSelectBootMacNode, *normalized);
                            if (rows.empty()) return std::optional<Id>();
                            return std::optional<Id>(detail::id(rows[0][0]));
                          });
}

}  // namespace inventory
