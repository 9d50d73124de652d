// How a BMC's SessionService is found and how its login answers are read (pure functions).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "redfish/client.hpp"

namespace redfish::detail {

// Where the service root says sessions live: Links.Sessions, or nullopt.
std::optional<std::string> sessionsLink(std::string_view rootBody);
// The service root's SessionService link (to read its "Sessions" when Links lacks it).
std::optional<std::string> sessionServiceLink(std::string_view rootBody);
// The SessionService's "Sessions" collection link.
std::optional<std::string> sessionsOfService(std::string_view serviceBody);

// {"UserName": ..., "Password": ...} with proper JSON escaping.
std::string loginBody(std::string_view username, std::string_view password);

// Login refused because the BMC has no free session (503/429/400 with a *Session*/*Limit*/
// *Exceeded* MessageId).
bool isSessionLimit(const Response& response);

// The error every request waiting on a failed login gets. Never names the password.
common::Error loginError(const Response& response, std::string_view url);

}  // namespace redfish::detail
