// BMC discoveries: one row per BMC however often and by whatever trigger it is seen.
#include "inventory/discovery.hpp"

#include "common/mac_address.hpp"
#include "db.hpp"
#include "queries_discovery.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

constexpr std::size_t kMaxText = 256;

Discovery discoveryFromRow(const pqxx::row& row) {
  Discovery d;
  d.id = detail::id(row[0]);
  d.bmc_mac = detail::text(row[1]);
  d.bmc_address = detail::text(row[2]);
  d.hostname = detail::text(row[3]);
  d.vendor_class = detail::text(row[4]);
  d.source = detail::text(row[5]);
  d.site = detail::text(row[6]);
  d.rack = detail::text(row[7]);
  d.u_position = detail::optInt(row[8]);
  d.expected_serial = detail::text(row[9]);
  d.lease_state = detail::text(row[10]);
  d.node_id = detail::optId(row[11]);
  d.seen_count = detail::integer(row[12]);
  d.first_seen_at = detail::text(row[13]);
  d.last_seen_at = detail::text(row[14]);
  return d;
}

common::Result<void> requireText(const std::string& value, const char* field, bool required) {
  if (required && value.empty()) {
    return common::invalidArgument("missing_field", std::string(field) + " is required", field);
  }
  if (value.size() > kMaxText) {
    return common::invalidArgument("field_too_long", std::string(field) + " is too long", field);
  }
  return common::success();
}

bool isSource(const std::string& s) {
  return s == "dhcp" || s == "sweep" || s == "manifest" || s == "redfish_event" || s == "operator";
}

// The report as stored: MAC normalised, everything bounded.
common::Result<DiscoveryReport> checkedReport(const DiscoveryReport& report) {
  DiscoveryReport r = report;
  if (!r.bmc_mac.empty()) {
    auto mac = common::normalizeMac(r.bmc_mac);
    if (!mac) return common::fail(std::move(mac).error().withField("bmc_mac"));
    r.bmc_mac = *mac;
  }
  PROV_TRY(requireText(r.bmc_address, "bmc_address", true));
  PROV_TRY(requireText(r.hostname, "hostname", false));
  PROV_TRY(requireText(r.vendor_class, "vendor_class", false));
  PROV_TRY(requireText(r.site, "site", false));
  PROV_TRY(requireText(r.rack, "rack", false));
  PROV_TRY(requireText(r.expected_serial, "expected_serial", false));
  if (!isSource(r.source)) {
    return common::invalidArgument("invalid_source", "unknown discovery source", "source");
  }
  if (r.u_position && *r.u_position < 1) {
    return common::invalidArgument("invalid_u_position", "u_position must be at least 1",
                                   "u_position");
  }
  return r;
}

RecordedDiscovery recordedFromRow(const pqxx::row& row) {
  return RecordedDiscovery{discoveryFromRow(row), row[15].as<bool>()};
}

pqxx::result execReport(Tx& tx, const detail::Query& query, const DiscoveryReport& r,
                        const std::optional<std::string>& mac) {
  return tx.exec(query, mac, r.bmc_address, r.hostname, r.vendor_class, r.source, r.site, r.rack,
                 r.u_position, r.expected_serial, r.released ? "released" : "active");
}

common::Error discoveryNotFound(Id id) {
  return common::notFound("discovery_not_found", "discovery " + std::to_string(id) + " not found");
}

}  // namespace

common::Result<RecordedDiscovery> recordDiscovery(Database& db, const DiscoveryReport& report) {
  PROV_ASSIGN(auto r, checkedReport(report));
  return detail::withTransaction(
      db, "record_discovery", [&](Tx& tx) -> common::Result<RecordedDiscovery> {
        if (r.bmc_mac.empty()) {
          auto refreshed = execReport(tx, detail::kRefreshDiscoveryByAddress, r, std::nullopt);
          if (!refreshed.empty()) return recordedFromRow(refreshed[0]);
          auto rows = execReport(tx, detail::kInsertDiscoveryByAddress, r, std::nullopt);
          return recordedFromRow(rows[0]);
        }
        auto adopted = execReport(tx, detail::kAdoptDiscoveryByAddress, r, r.bmc_mac);
        if (!adopted.empty()) return recordedFromRow(adopted[0]);
        auto rows = execReport(tx, detail::kUpsertDiscoveryByMac, r, r.bmc_mac);
        return recordedFromRow(rows[0]);
      });
}

common::Result<Discovery> getDiscovery(Database& db, Id id) {
  return detail::withRead(db, "get_discovery", [&](Tx& tx) -> common::Result<Discovery> {
    auto rows = tx.exec(detail::kSelectDiscovery, id);
    if (rows.empty()) return discoveryNotFound(id);
    return discoveryFromRow(rows[0]);
  });
}

common::Result<Page<Discovery>> listDiscoveries(Database& db, PageRequest page) {
  int limit = detail::clampLimit(page.limit);
  return detail::withRead(db, "list_discoveries", [&](Tx& tx) -> common::Result<Page<Discovery>> {
    std::vector<Discovery> items;
    for (const auto& row : tx.exec(detail::kSelectDiscoveryPage, page.after, limit + 1)) {
      items.push_back(discoveryFromRow(row));
    }
    return detail::makePage(std::move(items), limit);
  });
}

common::Result<void> linkDiscoveryToNode(Database& db, Id discovery_id, Id node_id,
                                         const std::string& bmc_mac) {
  std::optional<std::string> mac;
  if (!bmc_mac.empty()) {
    auto normalised = common::normalizeMac(bmc_mac);
    if (!normalised) return common::fail(std::move(normalised).error().withField("bmc_mac"));
    mac = *normalised;
  }
  return detail::withTransaction(db, "link_discovery", [&](Tx& tx) -> common::Result<void> {
    if (tx.exec(detail::kLinkDiscoveryToNode, discovery_id, node_id, mac).empty()) {
      return discoveryNotFound(discovery_id);
    }
    return common::success();
  });
}

}  // namespace inventory
