// The one table from common::ErrorKind to HTTP status, and RFC 7807 problem+json responses.
#pragma once

#include <string>
#include <string_view>

#include "common/error.hpp"
#include "provisioner/http/request.hpp"

namespace provisioner::http {

inline constexpr std::string_view kProblemContentType = "application/problem+json";
inline constexpr std::string_view kProblemTypePrefix = "https://provisioner.dev/problems/";

int httpStatusFor(common::ErrorKind kind);
int httpStatusFor(const common::Error& error);
// The reason phrase of the status the kind maps to ("Not Found"), used as the problem title.
std::string_view titleFor(common::ErrorKind kind);

// {"type","title","status","code","detail","field"?,"request_id"} as application/problem+json.
// detail is the error's message; Error::detail never reaches the client. Internal errors get a
// generic message instead, and the real one is logged with the request id.
Response problemResponse(const common::Error& error, const std::string& request_id);

// A problem for a status that no ErrorKind stands for, such as 405 "method_not_allowed" or
// 414 "uri_too_long": answers the server gives itself, never handlers.
Response problemResponse(int status, const std::string& code, const std::string& detail,
                         const std::string& request_id);

}  // namespace provisioner::http
