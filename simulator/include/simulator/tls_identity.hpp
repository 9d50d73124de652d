// A simulated BMC's TLS identity: a fresh EC P-256 key and a self-signed X.509 certificate whose
// CN and subjectAltName are the BMC's address, as BMCs ship them.
#pragma once

#include <memory>
#include <string>

#include "common/result.hpp"

typedef struct ssl_ctx_st SSL_CTX;  // NOLINT: OpenSSL's own spelling

namespace sim {

class TlsIdentity {
 public:
  // `address` is an IP literal (SAN IP) or a host name (SAN DNS).
  static common::Result<TlsIdentity> generate(const std::string& address);

  // SHA-256 over the certificate's DER, 64 lowercase hex digits.
  const std::string& fingerprint() const { return fingerprint_; }
  const std::string& certificatePem() const { return certificatePem_; }
  // A server context presenting this identity; the engine hands one to each new connection.
  SSL_CTX* context() const { return context_.get(); }

 private:
  struct ContextFree {
    void operator()(SSL_CTX* ctx) const;
  };
  std::shared_ptr<SSL_CTX> context_;
  std::string fingerprint_;
  std::string certificatePem_;
};

}  // namespace sim
