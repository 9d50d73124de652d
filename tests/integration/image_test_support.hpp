// Signed test images for API tests: random artifacts, a manifest, an Ed25519 key, uploads.
#pragma once

#include <map>
#include <string>

#include "images/signing.hpp"
#include "support/service_fixture.hpp"

namespace testing {

struct TestImage {
  images::KeyPair key;
  images::SignedManifest signed_manifest;
  std::map<std::string, std::string> bytes;  // kind -> artifact bytes
  std::string document() const;              // the signed manifest as JSON text
};

// A key pair (generating one is cheap, but tests share one per name for speed).
const images::KeyPair& testKey(const std::string& name = "release");

// Builds kernel, initrd and rootfs artifacts of random bytes, signs the manifest with `key`.
TestImage makeImage(const std::string& name, const std::string& version,
                    const images::KeyPair& key = testKey());

// Uploads every artifact of the image through PUT /api/v1/artifacts/{sha256} (as operator).
void uploadArtifacts(ServiceFixture& svc, const TestImage& image);

// Trusts the image's key, uploads its artifacts and registers it; returns the HTTP status.
int registerImage(ServiceFixture& svc, const TestImage& image);

}  // namespace testing
