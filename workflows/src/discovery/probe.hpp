// One sweep probe: an unauthenticated GET of the Redfish service root.
#pragma once

#include <functional>
#include <string>

#include "redfish/client.hpp"

namespace redfish {
class Transport;
}  // namespace redfish

namespace workflows {

// "https://10.0.0.5" (the scheme's default port left out) or "http://10.0.0.5:8080".
std::string bmcBaseUrl(const std::string& scheme, const std::string& address, int port);

// A body that is a Redfish service root: "RedfishVersion", or "@odata.id" "/redfish/v1".
bool isServiceRoot(const redfish::Response& response);

// Calls `done` exactly once (on the transport's thread, or at once on a bad URL) with whether
// the address answered as a Redfish service. Certificates are not checked here: nothing secret
// is sent, and they are pinned later, at claim.
void probeAddress(redfish::Transport& transport, const std::string& scheme,
                  const std::string& address, int port, std::function<void(bool)> done);

}  // namespace workflows
