#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {

using common::Error;
using common::ErrorKind;

Error usageError(std::string message, std::string usage) {
  return Error{
      ErrorKind::kInvalidArgument, kUsageErrorCode, std::move(message), {}, std::move(usage)};
}

Error configError(std::string message) {
  return Error{ErrorKind::kInvalidArgument, kConfigErrorCode, std::move(message), {}, {}};
}

Error localIoError(std::string message) {
  return Error{ErrorKind::kInvalidArgument, kLocalIoErrorCode, std::move(message), {}, {}};
}

bool isLocalError(const Error& error) {
  return error.code == kUsageErrorCode || error.code == kConfigErrorCode ||
         error.code == kConnectionErrorCode || error.code == kLocalIoErrorCode;
}

std::string formatError(const Error& error) {
  std::string text = "error: " + error.message;
  if (error.code == kUsageErrorCode) return text + "\n" + error.detail;
  if (isLocalError(error)) return text;
  if (!error.code.empty()) {
    text += " (" + error.code;
    if (!error.field.empty()) text += ", field " + error.field;
    text += ")";
  }
  if (!error.detail.empty()) text += " [" + error.detail + "]";
  return text;
}

int exitCodeFor(const Error& error) {
  if (error.code == kUsageErrorCode) return kExitUsage;
  if (error.code == kConfigErrorCode) return kExitConfig;
  if (error.code == kConnectionErrorCode) return kExitConnection;
  return kExitApiError;
}

}  // namespace provisioner::cli
