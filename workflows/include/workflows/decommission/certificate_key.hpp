// The service's certificate signing key on disk: its own Ed25519 key, not the image-signing key.
#pragma once

#include <filesystem>

#include "common/result.hpp"
#include "images/signing.hpp"

namespace workflows::decommission {

inline constexpr const char* kCertificateKeyFile = "certificate-signing-key.pem";

// Reads state_dir/certificate-signing-key.pem, or creates it (mode 0600, state_dir created when
// missing) on first start. InvalidArgument "invalid_private_key" naming the file when it holds
// no Ed25519 private key; InternalError on I/O failures.
common::Result<images::KeyPair> loadOrCreateSigningKey(const std::filesystem::path& state_dir);

}  // namespace workflows::decommission
