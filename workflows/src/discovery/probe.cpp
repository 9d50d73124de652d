#include "probe.hpp"

#include <nlohmann/json.hpp>

#include "redfish/json.hpp"
#include "redfish/transport.hpp"

namespace workflows {

std::string bmcBaseUrl(const std::string& scheme, const std::string& address, int port) {
  const bool default_port = (scheme == "https" && port == 443) || (scheme == "http" && port == 80);
  return scheme + "://" + address + (default_port ? "" : ":" + std::to_string(port));
}

bool isServiceRoot(const redfish::Response& response) {
  if (!response.isSuccess()) return false;
  auto body = redfish::parseBody(response.body, response.url, redfish::ParseLimits{1 << 20, 32});
  if (!body || !body->is_object()) return false;
  if (redfish::stringAt(*body, "RedfishVersion")) return true;
  auto id = redfish::odataId(*body);
  return id && (*id == "/redfish/v1" || *id == "/redfish/v1/");
}

void probeAddress(redfish::Transport& transport, const std::string& scheme,
                  const std::string& address, int port, std::function<void(bool)> done) {
  redfish::BmcEndpoint endpoint;
  endpoint.baseUrl = bmcBaseUrl(scheme, address, port);
  endpoint.tls.mode = redfish::TlsPolicy::Mode::kInsecure;
  auto client = transport.client(endpoint);
  if (!client) {
    done(false);
    return;
  }
  redfish::Request request;
  request.target = "/redfish/v1";
  request.authenticated = false;
  (*client)->sendAsync(std::move(request), [done = std::move(done)](auto result) {
    done(result && isServiceRoot(*result));
  });
}

}  // namespace workflows
