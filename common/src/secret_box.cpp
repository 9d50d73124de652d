#include "common/secret_box.hpp"
#include "common/hex.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>

namespace common {
namespace {

constexpr std::size_t kNonceSize = 12;
constexpr std::size_t kTagSize = 16;
constexpr std::string_view kSealPrefix = "v1:";

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherCtx newCipherCtx() {
  return CipherCtx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Error badKey(std::string why) {
  return invalidArgument("invalid_secret_key", "the secret key is not usable: " + std::move(why),
                         "secret_key");
}

}  // namespace

std::string randomBytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    throw std::runtime_error("RAND_bytes failed");  // the CSPRNG failing is not recoverable
  }
  return out;
}

std::string sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return hexOf(digest, SHA256_DIGEST_LENGTH);
}

std::string base64Encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

Result<std::string> base64Decode(std::string_view text) {
  text = trim(text);
  if (text.size() % 4 != 0) {
    return invalidArgument("invalid_base64", "base64 text length is not a multiple of 4");
  }
  std::string out(3 * text.size() / 4 + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return invalidArgument("invalid_base64", "text is not valid base64");
  std::size_t len = static_cast<std::size_t>(n);
  // EVP_DecodeBlock counts padding as zero bytes; drop them.
  if (!text.empty() && text.back() == '=') --len;
  if (text.size() > 1 && text[text.size() - 2] == '=') --len;
  out.resize(len);
  return out;
}

Result<SecretBox> SecretBox::fromKeyText(std::string_view text) {
  text = trim(text);
  std::array<unsigned char, kKeySize> key{};
  if (text.size() == 2 * kKeySize) {
    for (std::size_t i = 0; i < kKeySize; ++i) {
      int hi = hexValue(text[2 * i]);
      int lo = hexValue(text[2 * i + 1]);
      if (hi < 0 || lo < 0) return fail(badKey("64 characters but not hex"));
      key[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    return SecretBox(key);
  }
  auto raw = base64Decode(text);
  if (!raw || raw->size() != kKeySize) {
    return fail(badKey("expected 64 hex digits or base64 of 32 bytes"));
  }
  std::copy(raw->begin(), raw->end(), key.begin());
  return SecretBox(key);
}

Result<SecretBox> SecretBox::fromKeyFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(badKey("cannot read key file " + path));
  std::stringstream ss;
  ss << in.rdbuf();
  return fromKeyText(ss.str());
}

Result<std::string> SecretBox::seal(std::string_view plaintext) const {
  std::string nonce = randomBytes(kNonceSize);
  std::string cipher(plaintext.size(), '\0');
  unsigned char tag[kTagSize];
  auto ctx = newCipherCtx();
  int len = 0;
  int total = 0;
  bool ok = ctx && EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(),
                                      reinterpret_cast<const unsigned char*>(nonce.data())) == 1;
  ok = ok && EVP_EncryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(cipher.data()), &len,
                               reinterpret_cast<const unsigned char*>(plaintext.data()),
                               static_cast<int>(plaintext.size())) == 1;
  total = len;
  ok = ok && EVP_EncryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(cipher.data()) + total,
                                 &len) == 1;
  ok = ok && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, tag) == 1;
  if (!ok) return fail(internalError("AES-256-GCM encryption failed"));
  std::string blob = nonce + cipher + std::string(reinterpret_cast<char*>(tag), kTagSize);
  return std::string(kSealPrefix) + base64Encode(blob);
}

Result<std::string> SecretBox::open(std::string_view sealed) const {
  if (sealed.substr(0, kSealPrefix.size()) != kSealPrefix) {
    return fail(invalidArgument("invalid_sealed_secret", "sealed secret has an unknown format"));
  }
  auto blob = base64Decode(sealed.substr(kSealPrefix.size()));
  if (!blob || blob->size() < kNonceSize + kTagSize) {
    return fail(invalidArgument("invalid_sealed_secret", "sealed secret is truncated"));
  }
  const std::string& b = *blob;
  std::size_t cipherLen = b.size() - kNonceSize - kTagSize;
  std::string plain(cipherLen, '\0');
  std::string tag = b.substr(kNonceSize + cipherLen);
  auto ctx = newCipherCtx();
  int len = 0;
  bool ok = ctx && EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(),
                                      reinterpret_cast<const unsigned char*>(b.data())) == 1;
  ok = ok && EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(plain.data()), &len,
                               reinterpret_cast<const unsigned char*>(b.data()) + kNonceSize,
                               static_cast<int>(cipherLen)) == 1;
  ok = ok && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) == 1;
  int finalLen = 0;
  ok = ok && EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(plain.data()) + len,
                                 &finalLen) == 1;
  if (!ok) {
    return fail(invalidArgument("secret_decryption_failed",
                                "sealed secret failed authentication (wrong key or tampered)"));
  }
  return plain;
}

}  // namespace common
