// CLI-side error codes, how an Error is printed on stderr, and which exit code it maps to.
#pragma once

#include <string>

#include "common/error.hpp"

namespace provisioner::cli {

// Exit codes (sysexits.h where one fits).
inline constexpr int kExitOk = 0;
inline constexpr int kExitApiError = 1;    // the server refused, or a local file problem
inline constexpr int kExitConnection = 2;  // the server could not be reached
inline constexpr int kExitUsage = 64;      // EX_USAGE
inline constexpr int kExitConfig = 78;     // EX_CONFIG: no token, bad URL, bad config file

// Codes of errors made on this side of the wire; server problems carry the server's code.
inline constexpr const char* kUsageErrorCode = "usage";
inline constexpr const char* kConfigErrorCode = "config";
inline constexpr const char* kConnectionErrorCode = "connection_failed";
inline constexpr const char* kLocalIoErrorCode = "local_io";
inline constexpr const char* kBadResponseCode = "bad_response";

common::Error usageError(std::string message, std::string usage);
common::Error configError(std::string message);
common::Error localIoError(std::string message);

// True for errors the CLI made itself (printed as a plain sentence, no server fields).
bool isLocalError(const common::Error& error);

// "error: <message> (<code>, field <field>) [<detail>]" for server problems, where detail is
// "HTTP <status>, request <id>"; "error: <message>" for local ones. No trailing newline.
std::string formatError(const common::Error& error);

int exitCodeFor(const common::Error& error);

}  // namespace provisioner::cli
