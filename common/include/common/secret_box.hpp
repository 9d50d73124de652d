// Encryption of secrets at rest (BMC passwords) with AES-256-GCM, and the small crypto helpers
// around it (random bytes, SHA-256, base64), all through OpenSSL.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace common {

std::string randomBytes(std::size_t n);
std::string sha256Hex(std::string_view data);
std::string base64Encode(std::string_view data);
Result<std::string> base64Decode(std::string_view text);

// Seals and opens secrets with one 256-bit key. The sealed form is text safe to store in a
// database column: "v1:" + base64(nonce[12] || ciphertext || tag[16]). Each seal draws a fresh
// nonce, so sealing the same secret twice gives different texts.
class SecretBox {
 public:
  static constexpr std::size_t kKeySize = 32;

  // The key as 64 hex digits or base64 of 32 bytes (e.g. from `openssl rand -hex 32`).
  static Result<SecretBox> fromKeyText(std::string_view text);
  // Reads the key text from a file (surrounding whitespace ignored).
  static Result<SecretBox> fromKeyFile(const std::string& path);

  Result<std::string> seal(std::string_view plaintext) const;
  Result<std::string> open(std::string_view sealed) const;

 private:
  explicit SecretBox(std::array<unsigned char, kKeySize> key) : key_(key) {}
  std::array<unsigned char, kKeySize> key_;
};

}  // namespace common
