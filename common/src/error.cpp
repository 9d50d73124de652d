#include "common/error.hpp"

namespace common {

std::string_view toString(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      return "invalid_argument";
    case ErrorKind::kUnprocessable:
      return "unprocessable";
    case ErrorKind::kNotFound:
      return "not_found";
    case ErrorKind::kConflict:
      return "conflict";
    case ErrorKind::kUnauthenticated:
      return "unauthenticated";
    case ErrorKind::kPermissionDenied:
      return "permission_denied";
    case ErrorKind::kPayloadTooLarge:
      return "payload_too_large";
    case ErrorKind::kUnsupportedMediaType:
      return "unsupported_media_type";
    case ErrorKind::kUnavailable:
      return "unavailable";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kProtocol:
      return "protocol";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "internal";
}

Error invalidArgument(std::string code, std::string message, std::string field) {
  return Error{
      ErrorKind::kInvalidArgument, std::move(code), std::move(message), std::move(field), {}};
}
Error unprocessable(std::string code, std::string message, std::string field) {
  return Error{
      ErrorKind::kUnprocessable, std::move(code), std::move(message), std::move(field), {}};
}
Error notFound(std::string code, std::string message) {
  return Error{ErrorKind::kNotFound, std::move(code), std::move(message), {}, {}};
}
Error conflict(std::string code, std::string message, std::string field) {
  return Error{ErrorKind::kConflict, std::move(code), std::move(message), std::move(field), {}};
}
Error unauthenticated(std::string message) {
  return Error{ErrorKind::kUnauthenticated, "unauthenticated", std::move(message), {}, {}};
}
Error permissionDenied(std::string message) {
  return Error{ErrorKind::kPermissionDenied, "forbidden", std::move(message), {}, {}};
}
Error unavailable(std::string code, std::string message) {
  return Error{ErrorKind::kUnavailable, std::move(code), std::move(message), {}, {}};
}
Error internalError(std::string message) {
  return Error{ErrorKind::kInternal, "internal", std::move(message), {}, {}};
}

}  // namespace common
