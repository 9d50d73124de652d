#include "image_test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/secret_box.hpp"

namespace testing {

std::string TestImage::document() const {
  return images::toJson(signed_manifest).dump();
}

const images::KeyPair& testKey(const std::string& name) {
  static std::map<std::string, images::KeyPair> keys;
  auto it = keys.find(name);
  if (it == keys.end()) {
    auto pair = images::generateKeyPair();
    REQUIRE(pair);
    it = keys.emplace(name, *pair).first;
  }
  return it->second;
}

TestImage makeImage(const std::string& name, const std::string& version,
                    const images::KeyPair& key) {
  TestImage image;
  image.key = key;
  images::Manifest manifest;
  manifest.name = name;
  manifest.version = version;
  manifest.description = "burn-in image for tests";
  manifest.kernel_args = "console=ttyS0,115200 quiet";
  const std::pair<images::ArtifactKind, std::size_t> kinds[] = {
      {images::ArtifactKind::kKernel, 4096},
      {images::ArtifactKind::kInitrd, 70000},
      {images::ArtifactKind::kRootfs, 9000}};
  for (const auto& [kind, size] : kinds) {
    const std::string bytes = common::randomBytes(size);
    const std::string kind_name(images::toString(kind));
    image.bytes[kind_name] = bytes;
    manifest.artifacts.push_back(
        {kind, common::sha256Hex(bytes), bytes.size(), kind_name + "-" + version + ".img"});
  }
  auto signed_manifest = images::signManifest(manifest, key.private_pem);
  REQUIRE(signed_manifest);
  image.signed_manifest = *signed_manifest;
  return image;
}

void uploadArtifacts(ServiceFixture& svc, const TestImage& image) {
  for (const auto& [kind, bytes] : image.bytes) {
    auto r = svc.send("PUT", "/api/v1/artifacts/" + common::sha256Hex(bytes), bytes, "operator",
                      "application/octet-stream");
    INFO(r.body);
    REQUIRE((r.status == 201 || r.status == 200));
  }
}

int registerImage(ServiceFixture& svc, const TestImage& image) {
  auto pub = images::parsePublicKeyPem(image.key.public_pem);
  REQUIRE(pub);
  svc.trustKey(*pub);
  uploadArtifacts(svc, image);
  auto r = svc.send("POST", "/api/v1/images", image.document(), "operator");
  INFO(r.body);
  return r.status;
}

}  // namespace testing
