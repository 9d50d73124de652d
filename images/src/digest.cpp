// SHA-256 of streams and files, and the digest text rule.
#include <openssl/err.h>

#include <fstream>
#include <vector>

#include "common/hex.hpp"
#include "images/artifact_store.hpp"
#include "sha256_stream.hpp"

namespace images {
namespace detail {

Sha256Stream::Sha256Stream() : ctx_(EVP_MD_CTX_new()) {
  ok_ = ctx_ && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
}

void Sha256Stream::update(std::string_view chunk) {
  if (ok_ && !chunk.empty()) ok_ = EVP_DigestUpdate(ctx_.get(), chunk.data(), chunk.size()) == 1;
}

std::string Sha256Stream::finishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ok_ || EVP_DigestFinal_ex(ctx_.get(), digest, &length) != 1) {
    ok_ = false;
    ERR_clear_error();
    return {};
  }
  return common::hexOf(digest, length);
}

}  // namespace detail

bool isSha256Hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

common::Result<std::string> sha256OfFile(const std::filesystem::path& file) {
  auto unreadable = [&file] {
    return common::unavailable("artifact_unreadable", "cannot read " + file.string());
  };
  std::ifstream in(file, std::ios::binary);
  if (!in) return unreadable();
  detail::Sha256Stream hash;
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.update(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) return unreadable();
  auto hex = hash.finishHex();
  if (hex.empty()) return common::internalError("SHA-256 failed");
  return hex;
}

}  // namespace images
