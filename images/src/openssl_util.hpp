// RAII owners for the OpenSSL objects this module uses, and reading a small text file.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace images::detail {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
using Bio = std::unique_ptr<BIO, BioFree>;

// A read-only memory BIO over `text` (which must outlive it).
Bio memoryBio(std::string_view text);
// Everything written to a memory BIO.
std::string bioContents(BIO* bio);

// Reads a file of at most `max_bytes`; InvalidArgument `code` naming the file otherwise.
common::Result<std::string> readSmallFile(const std::filesystem::path& file, std::size_t max_bytes,
                                          const std::string& code);

}  // namespace images::detail
