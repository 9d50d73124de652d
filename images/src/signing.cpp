// Signed manifest documents: parsing, signing with a private key, verifying against trusted keys.
#include "images/signing.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <nlohmann/json.hpp>

#include "common/secret_box.hpp"
#include "openssl_util.hpp"

namespace images {
namespace {

using nlohmann::json;

constexpr std::size_t kSignatureSize = 64;
constexpr std::size_t kMaxPrivateKey = std::size_t{64} * 1024;
constexpr std::string_view kAlgorithm = "ed25519";
constexpr std::size_t kMaxSignatureField = 512;  // ids and base64 are far shorter

// Refuses a passphrase prompt: an encrypted key is reported as unusable, never read from a tty.
int noPassphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*u*/) {
  return -1;
}

common::Error badSignatureFormat(const std::string& field, const std::string& why) {
  return common::invalidArgument("invalid_signature_format", "signature " + why, field);
}

common::Result<Signature> parseSignature(const json& object) {
  if (!object.is_object()) return badSignatureFormat("signature", "must be an object");
  Signature signature;
  for (auto [key, target] :
       {std::pair{"key_id", &signature.key_id}, std::pair{"algorithm", &signature.algorithm},
        std::pair{"value", &signature.value}}) {
    auto it = object.find(key);
    const auto* text = it == object.end() ? nullptr : it->get_ptr<const std::string*>();
    if (text == nullptr) {
      return badSignatureFormat(std::string("signature.") + key,
                                std::string(key) + " must be a string");
    }
    if (text->size() > kMaxSignatureField) {
      return badSignatureFormat(std::string("signature.") + key, std::string(key) + " is too long");
    }
    *target = *text;
  }
  return signature;
}

common::Error unverified(const std::string& code, const std::string& message) {
  return common::invalidArgument(code, message, "signature");
}

}  // namespace

common::Result<SignedManifest> parseSignedManifest(std::string_view text) {
  auto document = json::parse(text, nullptr, false);
  if (document.is_discarded()) {
    return common::invalidArgument("malformed_json", "the signed manifest is not valid JSON");
  }
  return parseSignedManifest(document);
}

common::Result<SignedManifest> parseSignedManifest(const std::string& text) {
  return parseSignedManifest(std::string_view(text));
}

common::Result<SignedManifest> parseSignedManifest(const nlohmann::json& document) {
  if (!document.is_object()) {
    return common::invalidArgument("invalid_manifest", "the document must be a JSON object");
  }
  auto manifest_it = document.find("manifest");
  if (manifest_it == document.end()) {
    return common::invalidArgument("invalid_manifest", "the document has no manifest", "manifest");
  }
  SignedManifest result;
  auto manifest = parseManifest(*manifest_it);
  if (!manifest) {
    auto error = std::move(manifest).error();
    error.field = error.field == "manifest" ? "manifest" : "manifest." + error.field;
    return common::fail(std::move(error));
  }
  result.manifest = std::move(manifest).value();
  auto signature_it = document.find("signature");
  if (signature_it != document.end() && !signature_it->is_null()) {
    PROV_ASSIGN(result.signature, parseSignature(*signature_it));
  }
  return result;
}

nlohmann::json toJson(const SignedManifest& signed_manifest) {
  json document = {{"manifest", toJson(signed_manifest.manifest)}};
  if (signed_manifest.signature) {
    const auto& s = *signed_manifest.signature;
    document["signature"] = {{"key_id", s.key_id}, {"algorithm", s.algorithm}, {"value", s.value}};
  }
  return document;
}

common::Result<BytesSignature> signBytes(std::string_view bytes, std::string_view private_pem) {
  auto bad_key = common::invalidArgument("invalid_private_key",
                                         "the signing key is not an Ed25519 private key (PEM)");
  if (private_pem.size() > kMaxPrivateKey) return bad_key;
  auto bio = detail::memoryBio(private_pem);
  detail::Pkey pkey(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, noPassphrase, nullptr)
                        : nullptr);
  ERR_clear_error();
  if (!pkey || EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) return bad_key;

  std::string signature(kSignatureSize, '\0');
  std::size_t length = signature.size();
  detail::MdCtx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()) != 1) {
    ERR_clear_error();
    return common::internalError("Ed25519 signing failed");
  }
  signature.resize(length);

  std::string raw(32, '\0');
  std::size_t raw_length = raw.size();
  if (EVP_PKEY_get_raw_public_key(pkey.get(), reinterpret_cast<unsigned char*>(raw.data()),
                                  &raw_length) != 1) {
    ERR_clear_error();
    return common::internalError("cannot derive the public key of the signing key");
  }
  raw.resize(raw_length);
  return BytesSignature{std::move(signature), keyIdOf(raw)};
}

bool verifyBytes(std::string_view bytes, std::string_view signature, const PublicKey& key) {
  if (signature.size() != kSignatureSize) return false;
  detail::Pkey pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(key.raw.data()),
      key.raw.size()));
  detail::MdCtx ctx(EVP_MD_CTX_new());
  const bool ok =
      pkey && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) == 1 &&
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                       signature.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                       bytes.size()) == 1;
  ERR_clear_error();
  return ok;
}

common::Result<SignedManifest> signManifest(const Manifest& manifest,
                                            std::string_view private_pem) {
  PROV_ASSIGN(auto signed_bytes, signBytes(canonicalBytes(manifest), private_pem));
  return SignedManifest{manifest, Signature{std::move(signed_bytes.key_id), std::string(kAlgorithm),
                                            common::base64Encode(signed_bytes.signature)}};
}

common::Result<void> verifySignature(const SignedManifest& signed_manifest,
                                     const TrustedKeys& trusted) {
  if (!signed_manifest.signature) {
    return unverified("image_unsigned", "the image manifest is not signed");
  }
  const auto& signature = *signed_manifest.signature;
  const PublicKey* key = trusted.find(signature.key_id);
  if (key == nullptr) {
    return unverified("image_key_untrusted", "the manifest is signed by key " + signature.key_id +
                                                 ", which is not a trusted key");
  }
  if (signature.algorithm != kAlgorithm) {
    return unverified("image_signature_invalid",
                      "signature algorithm " + signature.algorithm + " is not ed25519");
  }
  auto decoded = common::base64Decode(signature.value);
  if (!decoded || !verifyBytes(canonicalBytes(signed_manifest.manifest), *decoded, *key)) {
    return unverified("image_signature_invalid",
                      "the signature does not verify with key " + signature.key_id +
                          " (wrong key, or the manifest changed after signing)");
  }
  return common::success();
}

}  // namespace images
