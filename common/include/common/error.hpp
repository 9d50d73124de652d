// The typed error that crosses every module boundary (see DESIGN.md "Errors, input, secrets").
#pragma once

#include <string>
#include <string_view>

namespace common {

// What went wrong, coarse enough that callers can branch on it and one table can map it to HTTP.
enum class ErrorKind {
  kInvalidArgument,       // bad input from a user; names the field
  kUnprocessable,         // well-formed input naming what does not exist or selecting nothing
  kNotFound,              // an id or serial that does not exist
  kConflict,              // duplicate, stale version, state that forbids the action
  kUnauthenticated,       // no, unknown or revoked credentials
  kPermissionDenied,      // authenticated but the role does not allow it
  kPayloadTooLarge,       // body over the configured limit
  kUnsupportedMediaType,  // wrong Content-Type
  kUnavailable,           // a dependency (database, BMC) cannot be reached now
  kTimeout,               // a dependency did not answer in time
  kProtocol,              // a peer (BMC, agent) answered something malformed
  kInternal,              // a bug or an invariant broken; never bad input
};

std::string_view toString(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string code;     // machine-readable, stable: "duplicate_serial", "malformed_json", ...
  std::string message;  // one sentence for people; never contains secrets
  std::string field;    // the offending input field ("units[3].bmc_mac", "line 7"), or empty
  std::string detail;   // optional context: the URL, the SQL statement name, a peer's message

  Error withField(std::string f) && {
    field = std::move(f);
    return std::move(*this);
  }
  Error withDetail(std::string d) && {
    detail = std::move(d);
    return std::move(*this);
  }
};

Error invalidArgument(std::string code, std::string message, std::string field = {});
Error unprocessable(std::string code, std::string message, std::string field = {});
Error notFound(std::string code, std::string message);
Error conflict(std::string code, std::string message, std::string field = {});
Error unauthenticated(std::string message);
Error permissionDenied(std::string message);
Error unavailable(std::string code, std::string message);
Error internalError(std::string message);

}  // namespace common
