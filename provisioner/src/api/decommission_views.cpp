#include "decommission_views.hpp"

namespace provisioner::api {
namespace {

using nlohmann::json;

json orNull(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

json parsedOrEmpty(const std::string& text) {
  auto parsed = json::parse(text, nullptr, false);
  return parsed.is_discarded() ? json::object() : parsed;
}

json deviceJson(const inventory::DeviceSanitization& d) {
  return {{"serial", d.serial},
          {"media_type", d.media_type},
          {"manufacturer", d.manufacturer},
          {"model", d.model},
          {"sanitization", d.sanitization},
          {"technique", d.technique},
          {"tool", d.tool},
          {"tool_version", d.tool_version},
          {"verification_method", d.verification_method},
          {"verification_coverage", d.verification_coverage},
          {"verified_by", d.verified_by},
          {"result", d.result},
          {"failure", d.failure},
          {"started_at", orNull(d.started_at)},
          {"finished_at", orNull(d.finished_at)}};
}

}  // namespace

json decommissionSummaryJson(const inventory::Decommission& d) {
  json failure = nullptr;
  if (d.state == "failed") {
    failure = {{"reason", d.failure_reason}, {"detail", parsedOrEmpty(d.failure_detail_json)}};
  }
  return {{"id", d.id},
          {"node_id", d.node_id},
          {"chassis_serial", d.chassis_serial},
          {"reason", d.reason},
          {"state", d.state},
          {"requested_by", d.requested_by},
          {"note", d.note},
          {"created_at", d.created_at},
          {"finished_at", orNull(d.finished_at)},
          {"certificate_id", d.certificate_id ? json(*d.certificate_id) : json(nullptr)},
          {"failure", failure}};
}

json decommissionJson(const inventory::Decommission& d,
                      const std::vector<inventory::DeviceSanitization>& devices,
                      const std::vector<inventory::Evidence>& evidence) {
  json out = decommissionSummaryJson(d);
  json device_list = json::array();
  for (const auto& device : devices) device_list.push_back(deviceJson(device));
  json evidence_list = json::array();
  for (const auto& e : evidence) {
    evidence_list.push_back(
        {{"name", e.name}, {"sha256", e.sha256}, {"recorded_at", e.recorded_at}});
  }
  out["devices"] = device_list;
  out["evidence"] = evidence_list;
  return out;
}

json certificateSummaryJson(const inventory::Certificate& c) {
  const std::string self = "/api/v1/certificates/" + std::to_string(c.id);
  return {{"id", c.id},
          {"decommission_id", c.decommission_id},
          {"node_id", c.node_id},
          {"key_id", c.key_id},
          {"document_sha256", c.document_sha256},
          {"issued_at", c.issued_at},
          {"links",
           {{"document", self}, {"signature", self + "/signature"}, {"html", self + "/html"}}}};
}

}  // namespace provisioner::api
