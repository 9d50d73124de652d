// Per-BMC self-signed certificates: EC P-256 keys are cheap to make, so a thousand BMCs start fast.
#include "simulator/tls_identity.hpp"
#include "common/hex.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstdio>

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace sim {
namespace {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

common::Error tlsError(const std::string& what) {
  return common::internalError("TLS identity: " + what + " failed");
}

bool isIpLiteral(const std::string& address) {
  std::array<unsigned char, 16> buffer{};
  return inet_pton(AF_INET, address.c_str(), buffer.data()) == 1 ||
         inet_pton(AF_INET6, address.c_str(), buffer.data()) == 1;
}

bool addSubjectAltName(X509* cert, const std::string& address) {
  std::string san = (isIpLiteral(address) ? "IP:" : "DNS:") + address;
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str());
  if (ext == nullptr) return false;
  bool added = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return added;
}

bool setRandomSerial(X509* cert) {
  std::array<unsigned char, 8> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return false;
  bytes[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(bytes.data(), static_cast<int>(bytes.size()), nullptr);
  bool ok = bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr;
  BN_free(bn);
  return ok;
}

common::Result<Cert> selfSign(EVP_PKEY* key, const std::string& address) {
  Cert cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1 || !setRandomSerial(cert.get())) {
    return tlsError("certificate setup");
  }
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -24 * 3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("Simulated BMC"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(address.c_str()), -1, -1, 0);
  if (X509_set_issuer_name(cert.get(), name) != 1 || X509_set_pubkey(cert.get(), key) != 1 ||
      !addSubjectAltName(cert.get(), address) || X509_sign(cert.get(), key, EVP_sha256()) == 0) {
    return tlsError("certificate signing");
  }
  return cert;
}

std::string sha256Fingerprint(X509* cert) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (X509_digest(cert, EVP_sha256(), digest.data(), &length) != 1) return {};
  return common::hexOf(digest.data(), length);
}

std::string toPem(X509* cert) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return {};
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

void TlsIdentity::ContextFree::operator()(SSL_CTX* ctx) const {
  SSL_CTX_free(ctx);
}

common::Result<TlsIdentity> TlsIdentity::generate(const std::string& address) {
  Key key(EVP_EC_gen("P-256"));
  if (!key) return tlsError("EC P-256 key generation");
  PROV_ASSIGN(Cert cert, selfSign(key.get(), address));

  std::shared_ptr<SSL_CTX> context(SSL_CTX_new(TLS_server_method()), ContextFree{});
  if (!context || SSL_CTX_use_certificate(context.get(), cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(context.get(), key.get()) != 1 ||
      SSL_CTX_check_private_key(context.get()) != 1) {
    return tlsError("server context");
  }
  SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
  // Many connections churn: skip the session cache so each BMC stays small.
  SSL_CTX_set_session_cache_mode(context.get(), SSL_SESS_CACHE_OFF);

  TlsIdentity identity;
  identity.context_ = std::move(context);
  identity.fingerprint_ = sha256Fingerprint(cert.get());
  identity.certificatePem_ = toPem(cert.get());
  if (identity.fingerprint_.empty()) return tlsError("certificate digest");
  return identity;
}

}  // namespace sim
