#include "inventory/dispositions.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "db.hpp"
#include "node_rows.hpp"
#include "queries_dispositions.hpp"

namespace inventory {
namespace {

using common::invalidArgument;
using detail::Tx;

constexpr std::size_t kMaxText = 256;

bool isDisposition(std::string_view d) {
  return std::find(std::begin(kDispositions), std::end(kDispositions), d) !=
         std::end(kDispositions);
}

std::optional<int> digits(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// YYYY-MM-DD naming a real calendar day.
bool isCalendarDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  auto y = digits(s.substr(0, 4));
  auto m = digits(s.substr(5, 2));
  auto d = digits(s.substr(8, 2));
  if (!y || !m || !d) return false;
  using namespace std::chrono;
  return year_month_day{year(*y), month(static_cast<unsigned>(*m)), day(static_cast<unsigned>(*d))}
      .ok();
}

common::Result<void> required(const std::string& value, std::string_view field,
                              std::string_view disposition) {
  if (value.empty()) {
    return invalidArgument("missing_field",
                           std::string(field) + " is required for a " + std::string(disposition),
                           std::string(field));
  }
  return common::success();
}

common::Result<void> notAllowed(bool present, std::string_view field,
                                std::string_view disposition) {
  if (present) {
    return invalidArgument("field_not_allowed",
                           std::string(field) + " does not apply to a " + std::string(disposition),
                           std::string(field));
  }
  return common::success();
}

common::Result<void> withinLimits(const DispositionSpec& s) {
  const std::pair<const std::string*, std::string_view> fields[] = {
      {&s.serial, "serial"},          {&s.rma_ticket, "rma_ticket"},
      {&s.rma_vendor, "rma_vendor"},  {&s.replacement_serial, "replacement_serial"},
      {&s.recycler, "recycler"},      {&s.recycler_certificate, "recycler_certificate"},
      {&s.recorded_by, "recorded_by"}};
  for (const auto& [value, name] : fields) {
    if (value->size() > kMaxText) {
      return invalidArgument("invalid_field",
                             std::string(name) + " is longer than " + std::to_string(kMaxText),
                             std::string(name));
    }
  }
  if (s.note.size() > 4096) return invalidArgument("invalid_field", "note is too long", "note");
  return common::success();
}

common::Result<void> validateRma(const DispositionSpec& s) {
  PROV_TRY(required(s.rma_ticket, "rma_ticket", "rma"));
  PROV_TRY(required(s.rma_vendor, "rma_vendor", "rma"));
  if (!s.shipped_on.empty() && !isCalendarDate(s.shipped_on)) {
    return invalidArgument("invalid_field",
                           "shipped_on must be a date YYYY-MM-DD, not '" + s.shipped_on + "'",
                           "shipped_on");
  }
  if (s.replacement_serial == s.serial) {
    return invalidArgument("invalid_field", "an asset cannot be its own replacement",
                           "replacement_serial");
  }
  PROV_TRY(notAllowed(!s.recycler.empty(), "recycler", "rma"));
  PROV_TRY(notAllowed(!s.recycler_certificate.empty(), "recycler_certificate", "rma"));
  return notAllowed(s.weight_kg.has_value(), "weight_kg", "rma");
}

common::Result<void> validateRecycled(const DispositionSpec& s) {
  PROV_TRY(required(s.recycler, "recycler", "recycled"));
  PROV_TRY(required(s.recycler_certificate, "recycler_certificate", "recycled"));
  if (s.weight_kg && !(std::isfinite(*s.weight_kg) && *s.weight_kg > 0)) {
    return invalidArgument("invalid_field", "weight_kg must be a positive number of kilograms",
                           "weight_kg");
  }
  return common::success();
}

// Spare and redeploy keep the asset: only a note.
common::Result<void> refuseEndOfLifeFields(const DispositionSpec& s) {
  PROV_TRY(notAllowed(!s.recycler.empty(), "recycler", s.disposition));
  PROV_TRY(notAllowed(!s.recycler_certificate.empty(), "recycler_certificate", s.disposition));
  return notAllowed(s.weight_kg.has_value(), "weight_kg", s.disposition);
}

common::Result<void> refuseRmaFields(const DispositionSpec& s) {
  PROV_TRY(notAllowed(!s.rma_ticket.empty(), "rma_ticket", s.disposition));
  PROV_TRY(notAllowed(!s.rma_vendor.empty(), "rma_vendor", s.disposition));
  PROV_TRY(notAllowed(!s.shipped_on.empty(), "shipped_on", s.disposition));
  return notAllowed(!s.replacement_serial.empty(), "replacement_serial", s.disposition);
}

std::optional<std::string> nullIfEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

Disposition dispositionFromRow(const pqxx::row& row) {
  Disposition d;
  d.id = detail::id(row[0]);
  d.serial = detail::text(row[1]);
  d.node_id = detail::optId(row[2]);
  d.asset_type = d.node_id ? "node" : "component";
  d.disposition = detail::text(row[3]);
  d.rma_ticket = detail::text(row[4]);
  d.rma_vendor = detail::text(row[5]);
  d.shipped_on = detail::text(row[6]);
  d.replacement_serial = detail::text(row[7]);
  d.recycler = detail::text(row[8]);
  d.recycler_certificate = detail::text(row[9]);
  if (!row[10].is_null()) d.weight_kg = row[10].as<double>();
  d.note = detail::text(row[11]);
  d.recorded_by = detail::text(row[12]);
  d.recorded_at = detail::text(row[13]);
  return d;
}

std::vector<Disposition> dispositionsFrom(const pqxx::result& rows) {
  std::vector<Disposition> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(dispositionFromRow(row));
  return out;
}

// Only a retired node (one with a signed sanitization certificate) leaves: anything else may
// still hold a tenant's data. One exception: a part whose sanitization failed goes back to its
// vendor under RMA from a node in decommission_failed (that failure is usually why it goes back,
// and the RMA is how the asset team tracks it; the node's failed decommission stays on record).
bool mayLeave(const std::string& node_state, const std::string& disposition) {
  return node_state == "retired" || (disposition == "rma" && node_state == "decommission_failed");
}

common::Result<void> refuseInService(const std::string& asset_type, const pqxx::field& state,
                                     const DispositionSpec& spec) {
  if (asset_type == "node" && !mayLeave(detail::text(state), spec.disposition)) {
    return common::conflict("node_not_sanitized",
                            "node " + spec.serial + " is " + detail::text(state) +
                                ": decommission it (a signed certificate retires it) first");
  }
  if (asset_type == "component" && !state.is_null() &&
      !mayLeave(detail::text(state), spec.disposition)) {
    return common::conflict(
        "component_in_service",
        "component " + spec.serial + " is installed in a node that is " + detail::text(state));
  }
  return common::success();
}

std::string eventDetail(const DispositionSpec& s, Id id) {
  nlohmann::json detail = {{"disposition_id", id}, {"disposition", s.disposition}};
  if (!s.rma_ticket.empty()) detail["rma_ticket"] = s.rma_ticket;
  if (!s.replacement_serial.empty()) detail["replacement_serial"] = s.replacement_serial;
  if (!s.recycler.empty()) detail["recycler"] = s.recycler;
  return detail.dump();
}

}  // namespace

common::Result<void> validateDisposition(const DispositionSpec& spec) {
  if (spec.serial.empty()) return invalidArgument("missing_field", "serial is required", "serial");
  if (!isDisposition(spec.disposition)) {
    return invalidArgument(
        "invalid_disposition",
        "disposition must be one of rma, spare, redeploy, recycled, not '" + spec.disposition + "'",
        "disposition");
  }
  if (spec.recorded_by.empty()) {
    return invalidArgument("missing_field", "recorded_by is required", "recorded_by");
  }
  PROV_TRY(withinLimits(spec));
  if (spec.disposition == "rma") return validateRma(spec);
  PROV_TRY(refuseRmaFields(spec));
  if (spec.disposition == "recycled") return validateRecycled(spec);
  return refuseEndOfLifeFields(spec);
}

common::Result<Disposition> recordDisposition(Database& db, const DispositionSpec& spec) {
  PROV_TRY(validateDisposition(spec));
  return detail::withTransaction(
      db, "record_disposition", [&](Tx& tx) -> common::Result<Disposition> {
        auto found = tx.exec(detail::kFindDispositionAsset, spec.serial);
        if (found.empty()) {
          return common::notFound("asset_not_found",
                                  "serial " + spec.serial + " is neither a node nor a component");
        }
        const std::string asset_type = found[0][0].c_str();
        PROV_TRY(refuseInService(asset_type, found[0][2], spec));
        const auto node_id = detail::optId(found[0][1]);
        const auto component_serial =
            asset_type == "component" ? std::optional<std::string>(spec.serial) : std::nullopt;
        auto inserted = tx.exec(
            detail::kInsertDisposition, node_id, component_serial, spec.disposition,
            spec.rma_ticket, spec.rma_vendor, nullIfEmpty(spec.shipped_on), spec.replacement_serial,
            spec.recycler, spec.recycler_certificate, spec.weight_kg, spec.note, spec.recorded_by);
        const Id id = detail::id(inserted[0][0]);
        // A node's timeline says so too, next to its decommission.
        if (node_id) {
          detail::insertEvent(tx, *node_id, spec.recorded_by, "disposition",
                              spec.disposition + (spec.note.empty() ? "" : ": " + spec.note),
                              eventDetail(spec, id));
        }
        return dispositionFromRow(tx.exec(detail::kSelectDisposition, id)[0]);
      });
}

common::Result<DispositionHistory> dispositionHistory(Database& db, const std::string& serial) {
  return detail::withRead(
      db, "disposition_history", [&](Tx& tx) -> common::Result<DispositionHistory> {
        DispositionHistory h;
        h.records = dispositionsFrom(tx.exec(detail::kSelectDispositionsOfSerial, serial));
        h.replaces = dispositionsFrom(tx.exec(detail::kSelectDispositionsReplacedBy, serial));
        return h;
      });
}

common::Result<std::vector<EndOfLifeCount>> endOfLifeCounts(Database& db,
                                                            const std::string& po_number) {
  return detail::withRead(
      db, "end_of_life_counts", [&](Tx& tx) -> common::Result<std::vector<EndOfLifeCount>> {
        auto po = tx.exec(detail::kSelectPoId, po_number);
        if (po.empty()) {
          return common::notFound("po_not_found", "no purchase order " + po_number);
        }
        std::vector<EndOfLifeCount> out;
        for (const auto& row : tx.exec(detail::kEndOfLifeCounts, detail::id(po[0][0]))) {
          out.push_back({detail::text(row[0]), row[1].as<int>(), row[2].as<int>(), row[3].as<int>(),
                         row[4].as<int>(), row[5].as<int>(), row[6].as<int>()});
        }
        return out;
      });
}

}  // namespace inventory
