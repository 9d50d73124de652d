#include "workflows/firmware/package_uri.hpp"

#include "images/artifact_store.hpp"

namespace workflows::firmware {

common::Result<std::filesystem::path> verifiedPackageFile(images::ArtifactStore& store,
                                                          const std::string& sha256,
                                                          std::int64_t size) {
  auto stored = store.openVerified(sha256);
  if (!stored) return common::fail(std::move(stored).error().withField("sha256"));
  if (size > 0 && stored->size != static_cast<std::uint64_t>(size)) {
    return common::fail(common::invalidArgument(
        "artifact_size_mismatch",
        "the stored artifact " + sha256 + " has " + std::to_string(stored->size) +
            " bytes, the package says " + std::to_string(size),
        "sha256"));
  }
  return stored->path;
}

common::Result<std::string> packageImageUri(images::ArtifactStore& store, const std::string& sha256,
                                            std::int64_t size, const PackageServing& serving) {
  PROV_TRY(verifiedPackageFile(store, sha256, size));
  if (!serving.mirror_url.empty()) return serving.mirror_url + "/sha256/" + sha256;
  return serving.public_url + "/boot/artifacts/" + sha256;
}

}  // namespace workflows::firmware
