#include "file_digest.hpp"
#include "common/hex.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <sstream>

namespace provisioner::cli {

common::Result<std::string> sha256OfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  auto unreadable = [&path] {
    return common::fail(common::invalidArgument("file_unreadable", "cannot read " + path, path));
  };
  if (!in) return unreadable();
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!md || EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr) != 1) {
    return common::fail(common::internalError("SHA-256 is not available"));
  }
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = in.gcount();
    if (got > 0) EVP_DigestUpdate(md.get(), buffer.data(), static_cast<std::size_t>(got));
  }
  if (in.bad()) return unreadable();
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(md.get(), digest.data(), &length);
  return common::hexOf(digest.data(), length);
}

common::Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return common::fail(common::invalidArgument("file_unreadable", "cannot read " + path, path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace provisioner::cli
