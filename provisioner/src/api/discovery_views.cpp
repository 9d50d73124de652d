#include "discovery_views.hpp"

#include <arpa/inet.h>

namespace provisioner::api {

using nlohmann::json;

json toJson(const inventory::Discovery& d) {
  return {{"id", d.id},
          {"bmc_mac", d.bmc_mac.empty() ? json(nullptr) : json(d.bmc_mac)},
          {"bmc_address", d.bmc_address},
          {"hostname", d.hostname},
          {"vendor_class", d.vendor_class},
          {"source", d.source},
          {"site", d.site},
          {"rack", d.rack},
          {"u_position", d.u_position ? json(*d.u_position) : json(nullptr)},
          {"expected_serial", d.expected_serial},
          {"lease_state", d.lease_state},
          {"node_id", d.node_id ? json(*d.node_id) : json(nullptr)},
          {"seen_count", d.seen_count},
          {"first_seen_at", d.first_seen_at},
          {"last_seen_at", d.last_seen_at}};
}

json toJson(const inventory::Sweep& s) {
  return {{"id", s.id},
          {"cidr", s.cidr},
          {"scheme", s.scheme},
          {"port", s.port},
          {"site", s.site},
          {"rack", s.rack},
          {"state", s.state},
          {"addresses", s.addresses},
          {"probed", s.probed},
          {"found", s.found},
          {"error", s.error},
          {"requested_by", s.requested_by},
          {"created_at", s.created_at},
          {"finished_at", s.finished_at.empty() ? json(nullptr) : json(s.finished_at)}};
}

common::Result<std::string> ipAddress(const std::string& text, const std::string& field) {
  unsigned char buffer[16];
  if (inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
      inet_pton(AF_INET6, text.c_str(), buffer) == 1) {
    return text;
  }
  return common::fail(
      common::invalidArgument("invalid_field", field + " must be an IP address", field));
}

common::Result<std::string> hostOrAddress(const std::string& text, const std::string& field) {
  if (ipAddress(text, field)) return text;
  bool ok = !text.empty() && text.size() <= 253 && text.front() != '-' && text.front() != '.';
  for (char c : text) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '.';
    ok = ok && allowed;
  }
  if (ok) return text;
  return common::fail(common::invalidArgument(
      "invalid_field", field + " must be an IP address or a host name", field));
}

}  // namespace provisioner::api
