#include "secret_token.hpp"

#include "common/secret_box.hpp"

namespace provisioner::api {

// URL-, shell- and kernel-command-line-safe text of the secret bytes.
std::string newSecretToken(std::string_view prefix) {
  std::string b64 = common::base64Encode(common::randomBytes(32));
  for (char& c : b64) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  return std::string(prefix) + b64;
}

}  // namespace provisioner::api
