// Ed25519 keys and manifest signatures (OpenSSL EVP): signing offline, verifying at registration.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "images/manifest.hpp"

namespace images {

struct KeyPair {
  std::string private_pem;  // PKCS#8 PEM
  std::string public_pem;   // SubjectPublicKeyInfo PEM
  std::string key_id;       // see keyIdOf()
};

struct PublicKey {
  std::string key_id;
  std::string raw;  // the 32 raw public key bytes
};

// "ed25519:" + the first 16 hex digits of SHA-256 over the raw public key.
std::string keyIdOf(std::string_view raw_public_key);

common::Result<KeyPair> generateKeyPair();
// The pair (public PEM and key id derived) of a stored private key; InvalidArgument
// "invalid_private_key" when the PEM is not an unencrypted Ed25519 private key.
common::Result<KeyPair> keyPairFromPrivatePem(std::string_view private_pem);
// InvalidArgument "invalid_public_key" when the PEM is not an Ed25519 public key.
common::Result<PublicKey> parsePublicKeyPem(std::string_view pem);

// Generic Ed25519 over exact bytes: the one implementation manifests and sanitization
// certificates share.
struct BytesSignature {
  std::string signature;  // the 64 raw signature bytes
  std::string key_id;     // keyIdOf() the signing key's public half
};
// InvalidArgument "invalid_private_key" when the PEM is not an Ed25519 private key.
common::Result<BytesSignature> signBytes(std::string_view bytes, std::string_view private_pem);
// True when `signature` (64 raw bytes) is a valid signature of `bytes` by `key`.
bool verifyBytes(std::string_view bytes, std::string_view signature, const PublicKey& key);

struct Signature {
  std::string key_id;
  std::string algorithm = "ed25519";
  std::string value;  // base64 of the 64-byte signature over canonicalBytes(manifest)
};

// On disk and on the wire: {"manifest": {...}, "signature": {"key_id", "algorithm", "value"}}.
struct SignedManifest {
  Manifest manifest;
  std::optional<Signature> signature;  // absent: unsigned
};

// Errors: InvalidArgument "malformed_json", "invalid_manifest" (field named), or
// "invalid_signature_format" (signature present but not an object of three strings).
common::Result<SignedManifest> parseSignedManifest(std::string_view text);
// Text too: without this overload a std::string argument is ambiguous (string_view or json).
common::Result<SignedManifest> parseSignedManifest(const std::string& text);
common::Result<SignedManifest> parseSignedManifest(const nlohmann::json& document);
nlohmann::json toJson(const SignedManifest& signed_manifest);

// InvalidArgument "invalid_private_key" when the PEM is not an Ed25519 private key.
common::Result<SignedManifest> signManifest(const Manifest& manifest, std::string_view private_pem);

// The public keys registration trusts, by key id.
class TrustedKeys {
 public:
  void add(PublicKey key);
  // Every *.pub / *.pem file in `dir`; InvalidArgument naming the file on a bad one.
  common::Result<void> addDirectory(const std::filesystem::path& dir);
  common::Result<void> addFile(const std::filesystem::path& file);
  const PublicKey* find(std::string_view key_id) const;
  std::vector<std::string> keyIds() const;
  bool empty() const { return keys_.empty(); }

 private:
  std::map<std::string, PublicKey, std::less<>> keys_;
};

// Which check failed, each an InvalidArgument with field "signature":
//   "image_unsigned"           no signature
//   "image_key_untrusted"      the signature names a key id that is not trusted
//   "image_signature_invalid"  the signature does not verify with that key (wrong key or the
//                              manifest was changed after signing)
common::Result<void> verifySignature(const SignedManifest& signed_manifest,
                                     const TrustedKeys& trusted);

}  // namespace images
