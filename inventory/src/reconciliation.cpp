// reconcile(): what procurement said would arrive against what was found.
#include "db.hpp"
#include "inventory/purchase_orders.hpp"
#include "node_rows.hpp"
#include "queries_reconciliation.hpp"

namespace inventory {
namespace {

using detail::Tx;

std::string optText(const pqxx::field& f) {
  return f.is_null() ? std::string() : f.c_str();
}

// Compares one unit (columns 0-5) with its matched node (columns 6-13). Fields the order left
// unset are not compared; the GPU count of a node never inspected (column 13) is unknown, so it
// is listed in `unchecked` instead.
std::vector<Mismatch> compare(const pqxx::row& row, std::vector<std::string>& unchecked) {
  std::vector<Mismatch> out;
  const bool inspected = row[13].as<bool>();
  auto check = [&out](const char* field, std::string expected, std::string actual) {
    if (expected != actual) out.push_back(Mismatch{field, std::move(expected), std::move(actual)});
  };
  check("chassis_serial", row[0].c_str(), row[7].c_str());
  check("model", row[1].c_str(), row[8].c_str());
  if (!row[3].is_null()) {
    if (inspected) {
      check("gpu_count", row[3].c_str(), row[10].c_str());
    } else {
      unchecked.emplace_back("gpu_count");
    }
  }
  if (*row[4].c_str() != '\0') check("rack", row[4].c_str(), row[11].c_str());
  if (!row[5].is_null()) check("u_position", row[5].c_str(), optText(row[12]));
  if (*row[2].c_str() != '\0') check("bmc_mac", row[2].c_str(), row[9].c_str());
  return out;
}

}  // namespace

common::Result<Reconciliation> reconcile(Database& db, const std::string& po_number) {
  return detail::withTransaction(db, "reconcile", [&](Tx& tx) -> common::Result<Reconciliation> {
    auto po = tx.exec(detail::kSelectPoId, po_number);
    if (po.empty()) return common::notFound("po_not_found", "no purchase order " + po_number);
    Id po_id = detail::id(po[0][0]);
    Reconciliation r;
    r.po_number = po_number;
    for (const auto& row : tx.exec(detail::kSelectUnitMatches, po_id)) {
      ++r.expected;
      ReconciledUnit unit;
      unit.chassis_serial = row[0].c_str();
      if (row[6].is_null()) {
        r.missing.push_back(std::move(unit));
        continue;
      }
      unit.node_id = detail::id(row[6]);
      unit.node_serial = row[7].c_str();
      unit.mismatches = compare(row, unit.unchecked);
      (unit.mismatches.empty() ? r.received : r.mismatched).push_back(std::move(unit));
    }
    for (const auto& row : tx.exec(detail::kSelectUnexpectedNodes, po_id)) {
      r.unexpected.push_back(detail::nodeFromRow(row));
    }
    return r;
  });
}

}  // namespace inventory
