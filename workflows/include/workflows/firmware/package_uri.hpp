// Where a BMC fetches a firmware package from (SimpleUpdate's ImageURI) and the file a multipart
// push streams, both only after the artifact's digest was checked again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace images {
class ArtifactStore;
}  // namespace images

namespace workflows::firmware {

struct PackageServing {
  std::string public_url;  // how BMCs reach the service, e.g. "http://10.0.0.1:8080"
  std::string mirror_url;  // when set, BMCs fetch MIRROR/sha256/<hex> instead
};

// The verified file of the package's artifact: the store re-hashes it unless it verified the
// same size and mtime before. Errors (field "sha256"): NotFound "artifact_not_found",
// InvalidArgument "artifact_size_mismatch" / "artifact_digest_mismatch".
common::Result<std::filesystem::path> verifiedPackageFile(images::ArtifactStore& store,
                                                          const std::string& sha256,
                                                          std::int64_t size);

// PUBLIC/boot/artifacts/<hex> (served there after the same check) or MIRROR/sha256/<hex>; the
// verifiedPackageFile() errors first.
common::Result<std::string> packageImageUri(images::ArtifactStore& store, const std::string& sha256,
                                            std::int64_t size, const PackageServing& serving);

}  // namespace workflows::firmware
