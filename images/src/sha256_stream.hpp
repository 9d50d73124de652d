// Incremental SHA-256 (OpenSSL EVP) for files and uploads too large to hold in memory.
#pragma once

#include <string>
#include <string_view>

#include "openssl_util.hpp"

namespace images::detail {

class Sha256Stream {
 public:
  Sha256Stream();
  // False when OpenSSL failed (practically never); the digest is then unusable.
  bool ok() const { return ok_; }
  void update(std::string_view chunk);
  // Lower-case hex; call once.
  std::string finishHex();

 private:
  MdCtx ctx_;
  bool ok_ = false;
};

}  // namespace images::detail
