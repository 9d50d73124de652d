// The typed errors of the Redfish client. All are common::Error with a stable code; `detail`
// carries the URL, the HTTP status and the BMC's @Message.ExtendedInfo messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace redfish {

struct Response;

namespace codes {
inline constexpr std::string_view kUnreachable = "bmc_unreachable";          // connect/DNS/reset
inline constexpr std::string_view kTimeout = "bmc_timeout";                  // no answer in time
inline constexpr std::string_view kTlsError = "bmc_tls_error";               // handshake/CA failed
inline constexpr std::string_view kPinMismatch = "bmc_certificate_changed";  // pin differs
inline constexpr std::string_view kAuthFailed = "bmc_auth_failed";           // login refused
inline constexpr std::string_view kSessionLimit = "bmc_session_limit";       // no free session
inline constexpr std::string_view kHttpError = "bmc_http_error";             // other non-2xx
inline constexpr std::string_view kMalformed = "bmc_malformed_response";     // bad body/shape
inline constexpr std::string_view kNotAllowed = "bmc_value_not_allowed";     // not allowable
inline constexpr std::string_view kNotSupported = "bmc_not_supported";       // no such feature
inline constexpr std::string_view kTaskFailed = "bmc_task_failed";           // task ended badly
inline constexpr std::string_view kCancelled = "bmc_cancelled";              // caller cancelled
inline constexpr std::string_view kReadOnly = "bmc_attribute_read_only";     // BIOS read-only
inline constexpr std::string_view kUnknownAttribute = "bmc_unknown_attribute";
inline constexpr std::string_view kWrongType = "bmc_attribute_wrong_type";
}  // namespace codes

// "Base.1.8.PropertyValueNotInList: The value X for BootMode is not in the list..." for each
// entry of @Message.ExtendedInfo (top level or under "error"), empty when the body has none.
std::vector<std::string> extendedInfoMessages(std::string_view body);

// A non-2xx answer as a typed error: kind from the status (401 -> kUnauthenticated, 404 ->
// kNotFound, 409/412 -> kConflict, 400 -> kInvalidArgument, 503 -> kUnavailable, else kProtocol),
// code bmc_http_error, message "BMC answered HTTP <status> to <METHOD> <url>: <first message>".
common::Error httpError(std::string_view method, const Response& response);

common::Error malformedResponse(std::string_view url, std::string_view what);

// True when a failed action certainly did not happen: the BMC answered 4xx or 503 (the
// transport has already retried the 503s), refused the login, the value or the feature, or the
// request was never sent (no session, TLS, a changed pin, shut down). False when it may have
// happened: a time-out, a reset connection, an unreadable answer, a 500. A step that
// wrote its intent before the call may clear it only on true.
bool certainlyNotActed(const common::Error& error);

}  // namespace redfish
