#include "json_views.hpp"

#include "provisioner/http/pagination.hpp"

namespace provisioner::api {
namespace {

using nlohmann::json;

template <class T>
json orNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json parsedOrRaw(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json(text) : j;
}

template <class T>
json arrayOf(const std::vector<T>& items) {
  json out = json::array();
  for (const auto& i : items) out.push_back(toJson(i));
  return out;
}

json unitJson(const inventory::ReconciledUnit& u) {
  json mismatches = json::array();
  for (const auto& m : u.mismatches) {
    mismatches.push_back({{"field", m.field}, {"expected", m.expected}, {"actual", m.actual}});
  }
  json j = {{"chassis_serial", u.chassis_serial},
            {"node_id", orNull(u.node_id)},
            {"node_serial", u.node_serial}};
  if (!u.mismatches.empty()) j["mismatches"] = mismatches;
  if (!u.unchecked.empty()) j["unchecked"] = u.unchecked;
  return j;
}

json unitsJson(const std::vector<inventory::ReconciledUnit>& units) {
  json out = json::array();
  for (const auto& u : units) out.push_back(unitJson(u));
  return out;
}

}  // namespace

json textOrNull(const std::string& text) {
  return text.empty() ? json(nullptr) : json(text);
}

json toJson(const inventory::Site& s) {
  return {
      {"id", s.id}, {"name", s.name}, {"description", s.description}, {"created_at", s.created_at}};
}

json toJson(const inventory::Rack& r) {
  return {{"id", r.id},
          {"site", r.site},
          {"room", r.room},
          {"row", r.row},
          {"name", r.name},
          {"u_height", r.u_height},
          {"node_count", r.node_count},
          {"created_at", r.created_at}};
}

json toJson(const inventory::Node& n) {
  return {{"id", n.id},
          {"state", n.state},
          {"hardware_model", n.hardware_model},
          {"chassis_serial", n.chassis_serial},
          {"bmc_address", n.bmc_address},
          {"bmc_mac", n.bmc_mac},
          {"rack_id", orNull(n.rack_id)},
          {"site", n.site},
          {"rack", n.rack},
          {"u_position", orNull(n.u_position)},
          {"gpu_count", n.gpu_count},
          {"state_reason", n.state_reason},
          {"labels", n.labels},
          {"created_at", n.created_at},
          {"updated_at", n.updated_at}};
}

json toJson(const inventory::Component& c) {
  return {{"id", c.id},
          {"kind", c.kind},
          {"slot", c.slot},
          {"manufacturer", c.manufacturer},
          {"model", c.model},
          {"part_number", c.part_number},
          {"serial", c.serial},
          {"firmware_version", c.firmware_version},
          {"installed_at", c.installed_at}};
}

json toJson(const inventory::NodeEvent& e) {
  return {{"id", e.id},     {"at", e.at},           {"actor", e.actor},
          {"kind", e.kind}, {"message", e.message}, {"detail", parsedOrRaw(e.detail_json)}};
}

json toJson(const inventory::NodeDetail& d) {
  json j = toJson(d.node);
  j["components"] = arrayOf(d.components);
  j["timeline"] = arrayOf(d.timeline);
  return j;
}

json toJson(const inventory::ComponentReportOutcome& o) {
  return {{"installed", o.installed},
          {"moved_in", o.moved_in},
          {"removed", o.removed},
          {"firmware_changed", o.firmware_changed},
          {"unchanged", o.unchanged}};
}

json toJson(const inventory::LineItem& i) {
  return {{"line_no", i.line_no},
          {"model", i.model},
          {"quantity", i.quantity},
          {"gpu_count", orNull(i.gpu_count)},
          {"description", i.description}};
}

json toJson(const inventory::ExpectedAsset& a) {
  return {{"id", a.id},
          {"chassis_serial", a.chassis_serial},
          {"model", a.model},
          {"bmc_mac", a.bmc_mac},
          {"factory_username", a.factory_username},
          {"has_factory_password", a.has_factory_password},
          {"gpu_count", orNull(a.gpu_count)},
          {"rack", a.rack},
          {"u_position", orNull(a.u_position)},
          {"line_no", orNull(a.line_no)}};
}

json toJson(const inventory::PurchaseOrderSummary& s) {
  return {{"id", s.id},
          {"po_number", s.po_number},
          {"vendor", s.vendor},
          {"status", s.status},
          {"asset_count", s.asset_count},
          {"created_at", s.created_at},
          {"updated_at", s.updated_at}};
}

json toJson(const inventory::PurchaseOrder& po) {
  json j = toJson(po.summary);
  j["line_items"] = arrayOf(po.line_items);
  j["assets"] = arrayOf(po.assets);
  return j;
}

json toJson(const inventory::Reconciliation& r) {
  json missing = json::array();
  for (const auto& u : r.missing) missing.push_back({{"chassis_serial", u.chassis_serial}});
  return {{"po_number", r.po_number},
          {"counts",
           {{"expected", r.expected},
            {"received", r.received.size()},
            {"mismatched", r.mismatched.size()},
            {"missing", r.missing.size()},
            {"unexpected", r.unexpected.size()}}},
          {"received", unitsJson(r.received)},
          {"mismatched", unitsJson(r.mismatched)},
          {"missing", missing},
          {"unexpected", arrayOf(r.unexpected)}};
}

json toJson(const inventory::Asset& a) {
  const auto& l = a.location;
  json history = json::array();
  for (const auto& h : a.history) {
    history.push_back({{"at", h.at},
                       {"event", h.event},
                       {"node_id", orNull(h.node_id)},
                       {"node_serial", h.node_serial},
                       {"slot", h.slot},
                       {"from_version", h.from_version},
                       {"to_version", h.to_version},
                       {"reason", h.reason}});
  }
  return {{"serial", a.serial},
          {"asset_type", a.asset_type},
          {"kind", a.kind},
          {"manufacturer", a.manufacturer},
          {"model", a.model},
          {"part_number", a.part_number},
          {"state", a.state},
          {"firmware_version", a.firmware_version},
          {"location",
           {{"site", l.site},
            {"room", l.room},
            {"row", l.row},
            {"rack", l.rack},
            {"u_position", orNull(l.u_position)},
            {"node_id", orNull(l.node_id)},
            {"node_serial", l.node_serial},
            {"slot", l.slot}}},
          {"po_number", a.po_number},
          {"components", arrayOf(a.components)},
          {"history", history}};
}

json toJson(const inventory::ApiToken& t) {
  return {{"id", t.id},
          {"name", t.name},
          {"role", t.role},
          {"created_at", t.created_at},
          {"revoked_at", orNull(t.revoked_at)}};
}

json toJson(const inventory::AuditEntry& e) {
  return {{"id", e.id},         {"at", e.at},          {"token_id", orNull(e.token_id)},
          {"actor", e.actor},   {"role", e.role},      {"method", e.method},
          {"path", e.path},     {"action", e.action},  {"request_id", e.request_id},
          {"status", e.status}, {"outcome", e.outcome}};
}

template <class T>
json pageJson(const inventory::Page<T>& page) {
  return {{"items", arrayOf(page.items)},
          {"next_cursor",
           page.next_after ? json(http::encodeCursor(*page.next_after)) : json(nullptr)}};
}

template json pageJson(const inventory::Page<inventory::Rack>&);
template json pageJson(const inventory::Page<inventory::Node>&);
template json pageJson(const inventory::Page<inventory::PurchaseOrderSummary>&);
template json pageJson(const inventory::Page<inventory::AuditEntry>&);

}  // namespace provisioner::api
