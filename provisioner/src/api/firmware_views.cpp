#include "firmware_views.hpp"

#include "provisioner/http/pagination.hpp"

namespace provisioner::api {
namespace {

using nlohmann::json;

json storedJson(const std::string& text) {
  auto value = json::parse(text, nullptr, false);
  return value.is_discarded() ? json(nullptr) : value;
}

json orNull(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}

json cursorOf(const std::optional<inventory::Id>& next) {
  return next ? json(http::encodeCursor(*next)) : json(nullptr);
}

json memberJson(const inventory::FirmwareObservation& m) {
  return {{"path", m.path},       {"id", m.member_id},
          {"name", m.name},       {"software_id", m.software_id},
          {"version", m.version}, {"updateable", m.updateable}};
}

}  // namespace

json toJson(const inventory::FirmwarePackage& p, const std::string& image_uri) {
  const auto& s = p.spec;
  json out = {
      {"id", p.id},
      {"name", s.name},
      {"version", s.version},
      {"vendor", s.vendor},
      {"models", s.models},
      {"component", s.component},
      {"match", storedJson(s.match_json)},
      {"sha256", s.sha256},
      {"size", s.size},
      {"install_method", s.install_method},
      {"apply", s.apply},
      {"min_from_version", s.min_from_version.empty() ? json(nullptr) : json(s.min_from_version)},
      {"allow_downgrade", s.allow_downgrade},
      {"simple_update_fallback", s.simple_update_fallback},
      {"estimated_seconds", s.estimated_seconds},
      {"created_by", p.created_by},
      {"created_at", p.created_at}};
  if (!image_uri.empty()) out["image_uri"] = image_uri;
  return out;
}

json toJson(const inventory::BaselineRevision& r) {
  return {{"baseline", r.baseline},     {"revision", r.revision},
          {"digest", r.digest},         {"author", r.author},
          {"created_at", r.created_at}, {"content", storedJson(r.content_json)}};
}

json toJson(const inventory::BaselineSummary& s) {
  return {{"name", s.name},
          {"latest_revision", s.latest_revision},
          {"digest", s.digest},
          {"created_by", s.created_by},
          {"created_at", s.created_at},
          {"updated_at", s.updated_at}};
}

json toJson(const inventory::NodeFirmware& f) {
  json members = json::array();
  for (const auto& m : f.members) {
    json one = memberJson(m.member);
    one["observed_at"] = m.observed_at;
    members.push_back(std::move(one));
  }
  return {{"node_id", f.node_id},
          {"observed_at", orNull(f.state.observed_at)},
          {"attempted_at", orNull(f.state.attempted_at)},
          {"reachable", f.state.reachable},
          {"reason", f.state.reason},
          {"members", std::move(members)}};
}

json toJson(const inventory::FirmwareHistoryEntry& e) {
  json out = memberJson(e.member);
  out.erase("updateable");
  out["previous_version"] = orNull(e.previous_version);
  out["observed_at"] = e.observed_at;
  return out;
}

json pageJson(const inventory::Page<inventory::FirmwarePackage>& page) {
  json items = json::array();
  for (const auto& p : page.items) items.push_back(toJson(p, ""));
  return {{"items", std::move(items)}, {"next_cursor", cursorOf(page.next_after)}};
}

json pageJson(const inventory::Page<inventory::BaselineSummary>& page) {
  json items = json::array();
  for (const auto& s : page.items) items.push_back(toJson(s));
  return {{"items", std::move(items)}, {"next_cursor", cursorOf(page.next_after)}};
}

}  // namespace provisioner::api
