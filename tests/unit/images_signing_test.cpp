#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "common/secret_box.hpp"
#include "images/signing.hpp"

using nlohmann::json;

namespace {

images::Manifest sampleManifest() {
  images::Manifest m;
  m.name = "ubuntu-burnin";
  m.version = "1.0.0";
  m.artifacts = {{images::ArtifactKind::kKernel, std::string(64, 'a'), 10, "vmlinuz"},
                 {images::ArtifactKind::kInitrd, std::string(64, 'b'), 20, "initrd"}};
  return m;
}

images::KeyPair newKey() {
  auto key = images::generateKeyPair();
  REQUIRE(key.ok());
  return *key;
}

images::TrustedKeys trusting(const images::KeyPair& key) {
  auto pub = images::parsePublicKeyPem(key.public_pem);
  REQUIRE(pub.ok());
  images::TrustedKeys trusted;
  trusted.add(*pub);
  return trusted;
}

std::string verifyCode(const images::SignedManifest& signed_manifest,
                       const images::TrustedKeys& trusted) {
  auto verified = images::verifySignature(signed_manifest, trusted);
  REQUIRE_FALSE(verified.ok());
  CHECK(verified.error().field == "signature");
  return verified.error().code;
}

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("images-keys-" + common::sha256Hex(common::randomBytes(8)));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

}  // namespace

TEST_CASE("Generated Ed25519 keys are PEM and the key id derives from the public key",
          "[unit][images]") {
  auto key = newKey();
  CHECK(key.private_pem.rfind("-----BEGIN PRIVATE KEY-----", 0) == 0);
  CHECK(key.public_pem.rfind("-----BEGIN PUBLIC KEY-----", 0) == 0);
  auto pub = images::parsePublicKeyPem(key.public_pem);
  REQUIRE(pub.ok());
  CHECK(pub->raw.size() == 32);
  CHECK(pub->key_id == key.key_id);
  CHECK(key.key_id == images::keyIdOf(pub->raw));
  CHECK(key.key_id.size() == std::string("ed25519:").size() + 16);
  CHECK(newKey().key_id != key.key_id);
}

TEST_CASE("A signed manifest verifies and survives its JSON round trip", "[unit][images]") {
  auto key = newKey();
  auto signed_manifest = images::signManifest(sampleManifest(), key.private_pem);
  REQUIRE(signed_manifest.ok());
  REQUIRE(signed_manifest->signature.has_value());
  CHECK(signed_manifest->signature->key_id == key.key_id);
  CHECK(signed_manifest->signature->algorithm == "ed25519");
  CHECK(images::verifySignature(*signed_manifest, trusting(key)).ok());

  auto reparsed = images::parseSignedManifest(images::toJson(*signed_manifest).dump(2));
  REQUIRE(reparsed.ok());
  CHECK(images::verifySignature(*reparsed, trusting(key)).ok());
}

TEST_CASE("Verification names the failed check", "[unit][images]") {
  auto key = newKey();
  auto other = newKey();
  auto signed_manifest = images::signManifest(sampleManifest(), key.private_pem);
  REQUIRE(signed_manifest.ok());

  images::SignedManifest unsigned_manifest{sampleManifest(), std::nullopt};
  CHECK(verifyCode(unsigned_manifest, trusting(key)) == "image_unsigned");
  CHECK(verifyCode(*signed_manifest, trusting(other)) == "image_key_untrusted");

  // A digest edited in the JSON after signing.
  json document = images::toJson(*signed_manifest);
  document["manifest"]["artifacts"][0]["sha256"] = std::string(64, 'f');
  auto edited = images::parseSignedManifest(document.dump());
  REQUIRE(edited.ok());
  CHECK(verifyCode(*edited, trusting(key)) == "image_signature_invalid");

  // Made with another key but claiming the trusted key's id.
  auto forged = images::signManifest(sampleManifest(), other.private_pem);
  REQUIRE(forged.ok());
  forged->signature->key_id = key.key_id;
  CHECK(verifyCode(*forged, trusting(key)) == "image_signature_invalid");

  auto garbage = *signed_manifest;
  garbage.signature->value = "not base64!";
  CHECK(verifyCode(garbage, trusting(key)) == "image_signature_invalid");
}

TEST_CASE("Signed manifest documents are checked for shape", "[unit][images]") {
  CHECK(images::parseSignedManifest(std::string_view("{not json")).error().code ==
        "malformed_json");
  CHECK(images::parseSignedManifest(json{{"signature", nullptr}}).error().field == "manifest");
  auto key = newKey();
  auto signed_manifest = images::signManifest(sampleManifest(), key.private_pem);
  REQUIRE(signed_manifest.ok());
  json document = images::toJson(*signed_manifest);
  document["signature"]["value"] = 42;
  auto bad = images::parseSignedManifest(document);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == "invalid_signature_format");
  CHECK(bad.error().field == "signature.value");
  document["manifest"]["version"] = "";
  auto bad_manifest = images::parseSignedManifest(document);
  REQUIRE_FALSE(bad_manifest.ok());
  CHECK(bad_manifest.error().field == "manifest.version");
}

TEST_CASE("Keys that are not Ed25519 PEM are refused without echoing them", "[unit][images]") {
  auto key = newKey();
  auto sign_with_public = images::signManifest(sampleManifest(), key.public_pem);
  REQUIRE_FALSE(sign_with_public.ok());
  CHECK(sign_with_public.error().code == "invalid_private_key");
  auto sign_with_junk = images::signManifest(sampleManifest(), "secret-material");
  REQUIRE_FALSE(sign_with_junk.ok());
  CHECK(sign_with_junk.error().message.find("secret-material") == std::string::npos);
  CHECK(images::parsePublicKeyPem(key.private_pem).error().code == "invalid_public_key");
  CHECK(images::parsePublicKeyPem("").error().code == "invalid_public_key");
}

TEST_CASE("Trusted keys load from key files and directories", "[unit][images]") {
  TempDir dir;
  auto a = newKey();
  auto b = newKey();
  dir.write("a.pub", a.public_pem);
  dir.write("b.pem", b.public_pem);
  dir.write("notes.txt", "not a key, ignored");
  images::TrustedKeys trusted;
  REQUIRE(trusted.addDirectory(dir.path).ok());
  CHECK(trusted.keyIds().size() == 2);
  CHECK(trusted.find(a.key_id) != nullptr);
  CHECK(trusted.find(b.key_id) != nullptr);

  dir.write("broken.pub", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
  images::TrustedKeys more;
  auto loaded = more.addDirectory(dir.path);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().code == "invalid_public_key");
  CHECK(loaded.error().field.find("broken.pub") != std::string::npos);
  CHECK_FALSE(more.addFile(dir.path / "missing.pub").ok());
}
