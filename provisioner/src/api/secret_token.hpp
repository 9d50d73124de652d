// Bearer secrets the service hands out (API tokens, agent tokens): 256 random bits as base64url
// without padding, after a prefix that says what the token is for. Only their hashes are stored.
#pragma once

#include <string>
#include <string_view>

namespace provisioner::api {

std::string newSecretToken(std::string_view prefix);

}  // namespace provisioner::api
