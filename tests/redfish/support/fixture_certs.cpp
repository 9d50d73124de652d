#include "redfish/support/fixture_certs.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace fixture {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test PKI: ") + what);
}

KeyPtr newKey() {
  KeyPtr key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  check(key != nullptr, "EC key generation");
  return key;
}

void addExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// Signs a certificate for `subjectKey`; issuer null means self-signed.
CertPtr makeCert(EVP_PKEY* subjectKey, const std::string& commonName, X509* issuer,
                 EVP_PKEY* issuerKey, bool isCa) {
  static long serial = 1;
  CertPtr cert(X509_new(), &X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), subjectKey);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (isCa) {
    addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    addExtension(cert.get(), signer, NID_basic_constraints, "CA:FALSE");
    addExtension(cert.get(), signer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  }
  check(X509_sign(cert.get(), issuerKey != nullptr ? issuerKey : subjectKey, EVP_sha256()) > 0,
        "sign");
  return cert;
}

void writePem(const std::string& path, X509* cert, EVP_PKEY* key) {
  FILE* file = std::fopen(path.c_str(), "w");
  check(file != nullptr, "open PEM");
  bool ok = cert != nullptr
                ? PEM_write_X509(file, cert) == 1
                : PEM_write_PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  std::fclose(file);
  check(ok, "write PEM");
}

std::string sha256Hex(X509* cert) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  X509_digest(cert, EVP_sha256(), digest, &length);
  std::string out;
  char byte[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof(byte), "%02x", digest[i]);
    out += byte;
  }
  return out;
}

CertFiles save(const std::string& dir, const std::string& name, X509* cert, EVP_PKEY* key) {
  CertFiles files{dir + "/" + name + ".crt", dir + "/" + name + ".key", sha256Hex(cert)};
  writePem(files.certPath, cert, nullptr);
  writePem(files.keyPath, nullptr, key);
  return files;
}

}  // namespace

TestPki::TestPki() {
  std::string pattern = (std::filesystem::temp_directory_path() / "transport-pki-XXXXXX").string();
  check(mkdtemp(pattern.data()) != nullptr, "mkdtemp");
  dir_ = pattern;
}

TestPki::~TestPki() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

CertFiles TestPki::selfSigned(const std::string& name) {
  KeyPtr key = newKey();
  CertPtr cert = makeCert(key.get(), "127.0.0.1", nullptr, nullptr, false);
  return save(dir_, name, cert.get(), key.get());
}

TestPki::CaAndLeaf TestPki::caSigned(const std::string& name) {
  KeyPtr caKey = newKey();
  CertPtr ca = makeCert(caKey.get(), name + " test CA", nullptr, nullptr, true);
  KeyPtr leafKey = newKey();
  CertPtr leaf = makeCert(leafKey.get(), "127.0.0.1", ca.get(), caKey.get(), false);
  CaAndLeaf out{save(dir_, name + "-ca", ca.get(), caKey.get()).certPath, {}};
  out.leaf = save(dir_, name + "-leaf", leaf.get(), leafKey.get());
  return out;
}

}  // namespace fixture
