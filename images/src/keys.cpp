// Ed25519 key generation and parsing, key ids, and the trusted key set.
#include <openssl/err.h>
#include <openssl/pem.h>

#include <algorithm>
#include <system_error>

#include "common/secret_box.hpp"
#include "images/signing.hpp"
#include "openssl_util.hpp"

namespace images {
namespace {

constexpr std::size_t kRawKeySize = 32;
constexpr std::size_t kMaxKeyFile = std::size_t{64} * 1024;

common::Error badPublicKey(const std::string& why) {
  return common::invalidArgument("invalid_public_key", "not an Ed25519 public key: " + why);
}

// An encrypted key is reported as unusable, never prompted for on a tty.
int refusePassphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*u*/) {
  return -1;
}

common::Result<std::string> rawPublicKey(EVP_PKEY* pkey) {
  std::string raw(kRawKeySize, '\0');
  std::size_t len = raw.size();
  if (EVP_PKEY_get_raw_public_key(pkey, reinterpret_cast<unsigned char*>(raw.data()), &len) != 1 ||
      len != kRawKeySize) {
    ERR_clear_error();
    return common::internalError("cannot read the raw Ed25519 public key");
  }
  return raw;
}

}  // namespace

std::string keyIdOf(std::string_view raw_public_key) {
  return "ed25519:" + common::sha256Hex(raw_public_key).substr(0, 16);
}

common::Result<KeyPair> generateKeyPair() {
  detail::Pkey pkey(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  detail::Bio priv(BIO_new(BIO_s_mem()));
  detail::Bio pub(BIO_new(BIO_s_mem()));
  if (!pkey || !priv || !pub ||
      PEM_write_bio_PrivateKey(priv.get(), pkey.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1 ||
      PEM_write_bio_PUBKEY(pub.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return common::internalError("Ed25519 key generation failed");
  }
  PROV_ASSIGN(auto raw, rawPublicKey(pkey.get()));
  KeyPair pair;
  pair.private_pem = detail::bioContents(priv.get());
  pair.public_pem = detail::bioContents(pub.get());
  pair.key_id = keyIdOf(raw);
  return pair;
}

common::Result<KeyPair> keyPairFromPrivatePem(std::string_view private_pem) {
  auto bad_key = common::invalidArgument("invalid_private_key",
                                         "not an unencrypted Ed25519 private key (PEM)");
  if (private_pem.size() > kMaxKeyFile) return bad_key;
  auto bio = detail::memoryBio(private_pem);
  detail::Pkey pkey(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, refusePassphrase, nullptr)
                        : nullptr);
  ERR_clear_error();
  if (!pkey || EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) return bad_key;
  detail::Bio pub(BIO_new(BIO_s_mem()));
  if (!pub || PEM_write_bio_PUBKEY(pub.get(), pkey.get()) != 1) {
    ERR_clear_error();
    return common::internalError("cannot write the public key of the private key");
  }
  PROV_ASSIGN(auto raw, rawPublicKey(pkey.get()));
  return KeyPair{std::string(private_pem), detail::bioContents(pub.get()), keyIdOf(raw)};
}

common::Result<PublicKey> parsePublicKeyPem(std::string_view pem) {
  if (pem.size() > kMaxKeyFile) return badPublicKey("too large");
  auto bio = detail::memoryBio(pem);
  detail::Pkey pkey(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  ERR_clear_error();
  if (!pkey) return badPublicKey("no PEM public key found");
  if (EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) return badPublicKey("another algorithm");
  PROV_ASSIGN(auto raw, rawPublicKey(pkey.get()));
  return PublicKey{keyIdOf(raw), std::move(raw)};
}

void TrustedKeys::add(PublicKey key) {
  std::string id = key.key_id;
  keys_.insert_or_assign(std::move(id), std::move(key));
}

common::Result<void> TrustedKeys::addFile(const std::filesystem::path& file) {
  PROV_ASSIGN(auto pem, detail::readSmallFile(file, kMaxKeyFile, "invalid_public_key"));
  auto key = parsePublicKeyPem(pem);
  if (!key) {
    auto error = std::move(key).error();
    error.message = file.string() + ": " + error.message;
    error.field = file.string();
    return common::fail(std::move(error));
  }
  add(std::move(key).value());
  return common::success();
}

common::Result<void> TrustedKeys::addDirectory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension();
    if ((ext == ".pub" || ext == ".pem") && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) {
    return common::invalidArgument(
        "invalid_public_key", "cannot list " + dir.string() + ": " + ec.message(), dir.string());
  }
  std::sort(files.begin(), files.end());  // deterministic order, and errors name the same file
  for (const auto& file : files) PROV_TRY(addFile(file));
  return common::success();
}

const PublicKey* TrustedKeys::find(std::string_view key_id) const {
  auto it = keys_.find(key_id);
  return it == keys_.end() ? nullptr : &it->second;
}

std::vector<std::string> TrustedKeys::keyIds() const {
  std::vector<std::string> ids;
  ids.reserve(keys_.size());
  for (const auto& [id, key] : keys_) ids.push_back(id);
  return ids;
}

}  // namespace images
