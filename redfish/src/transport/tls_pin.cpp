#include "transport/tls_pin.hpp"
#include "common/hex.hpp"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <cctype>

namespace redfish::detail {
namespace {

std::string sha256Hex(X509* certificate) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (X509_digest(certificate, EVP_sha256(), digest, &length) != 1) return {};
  return common::hexOf(digest, length);
}

// Replaces OpenSSL's chain verification for this SSL_CTX. In kCaBundle mode the normal chain
// verification still runs (X509_verify_cert) and decides; the leaf is recorded either way.
int verifyCertificate(X509_STORE_CTX* storeCtx, void* arg) {
  auto* pin = static_cast<TlsPin*>(arg);
  bool chainVerified = true;
  if (pin->policy().mode == TlsPolicy::Mode::kCaBundle) {
    chainVerified = X509_verify_cert(storeCtx) == 1;
  }
  X509* leaf = X509_STORE_CTX_get0_cert(storeCtx);
  if (leaf == nullptr) return 0;
  return pin->onLeafCertificate(sha256Hex(leaf), chainVerified) ? 1 : 0;
}

CURLcode installVerifier(CURL* /*easy*/, void* sslCtx, void* arg) {
  auto* ctx = static_cast<SSL_CTX*>(sslCtx);
  // SSL_VERIFY_PEER so that a refusal aborts the handshake even where libcurl's own peer
  // verification is off (pin modes).
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_cert_verify_callback(ctx, verifyCertificate, arg);
  return CURLE_OK;
}

}  // namespace

std::optional<std::string> normaliseFingerprint(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ':' || c == ' ') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (out.size() != 64) return std::nullopt;
  return out;
}

TlsPin::TlsPin(TlsPolicy policy) : policy_(std::move(policy)) {
  if (policy_.mode == TlsPolicy::Mode::kPinned) {
    // A malformed pin (Transport::client refuses it) must never turn into "trust on first use".
    pinned_ = normaliseFingerprint(policy_.pinnedSha256).value_or("invalid pin");
  }
}

void TlsPin::configure(void* curlEasy) {
  CURL* easy = static_cast<CURL*>(curlEasy);
  bool caBundle = policy_.mode == TlsPolicy::Mode::kCaBundle;
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, caBundle ? 1L : 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, caBundle ? 2L : 0L);
  if (caBundle) curl_easy_setopt(easy, CURLOPT_CAINFO, policy_.caBundlePath.c_str());
  curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, &installVerifier);
  curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, this);
}

std::string TlsPin::observed() const {
  std::lock_guard lock(mutex_);
  return observed_;
}

std::string TlsPin::rejected() const {
  std::lock_guard lock(mutex_);
  return rejected_;
}

std::string TlsPin::expected() const {
  std::lock_guard lock(mutex_);
  return pinned_;
}

bool TlsPin::onLeafCertificate(const std::string& fingerprint, bool chainVerified) {
  std::lock_guard lock(mutex_);
  if (fingerprint.empty()) return false;
  observed_ = fingerprint;
  switch (policy_.mode) {
    case TlsPolicy::Mode::kInsecure:
      break;
    case TlsPolicy::Mode::kCaBundle:
      if (!chainVerified) return false;
      break;
    case TlsPolicy::Mode::kPinOnFirstUse:
    case TlsPolicy::Mode::kPinned:
      if (pinned_.empty()) pinned_ = fingerprint;  // first use
      if (fingerprint != pinned_) {
        rejected_ = fingerprint;
        return false;
      }
      break;
  }
  rejected_.clear();
  return true;
}

}  // namespace redfish::detail
