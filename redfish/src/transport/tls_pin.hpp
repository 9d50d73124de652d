// Certificate pinning done inside the TLS handshake: an OpenSSL verify callback, installed through
// CURLOPT_SSL_CTX_FUNCTION, hashes the leaf certificate (SHA-256 over DER) and records or compares
// it, so a changed certificate fails before any request or credential is sent.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "redfish/transport.hpp"

namespace redfish::detail {

// "AB:cd:..." or "abcd..." -> 64 lowercase hex digits; nullopt when it is not a SHA-256.
std::optional<std::string> normaliseFingerprint(std::string_view text);

// One per BMC; shared by all its connections. The callback runs on the transport thread, readers
// (certificateFingerprint) may be on any thread, hence the mutex.
class TlsPin {
 public:
  explicit TlsPin(TlsPolicy policy);

  const TlsPolicy& policy() const { return policy_; }
  // Configures the easy handle: verification options and the SSL_CTX hook.
  void configure(void* curlEasy);

  // The leaf fingerprint last seen in a handshake, "" before the first.
  std::string observed() const;
  // The fingerprint a handshake was refused for (pin mismatch), "" when none since the last
  // accepted handshake.
  std::string rejected() const;
  std::string expected() const;

  // Called by the verify callback: whether the handshake may continue.
  bool onLeafCertificate(const std::string& fingerprint, bool chainVerified);

 private:
  TlsPolicy policy_;
  mutable std::mutex mutex_;
  std::string pinned_;  // the pin in force; empty until first use in kPinOnFirstUse
  std::string observed_;
  std::string rejected_;
};

}  // namespace redfish::detail
