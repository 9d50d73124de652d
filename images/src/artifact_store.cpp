#include "images/artifact_store.hpp"

#include <sys/stat.h>

#include <fstream>
#include <system_error>
#include <vector>

#include "artifact_upload.hpp"

namespace images {
namespace {

struct FileStat {
  bool exists = false;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};

FileStat statFile(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return {true, static_cast<std::uint64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

common::Error artifactError(const std::string& code, const std::string& field,
                            const std::string& message) {
  return common::invalidArgument(code, message, field);
}

}  // namespace

common::Result<std::shared_ptr<ArtifactStore>> ArtifactStore::open(
    const std::filesystem::path& root) {
  std::error_code ec;
  std::filesystem::create_directories(root / "sha256", ec);
  if (!ec) std::filesystem::create_directories(root / "tmp", ec);
  if (ec) {
    return common::unavailable(
        "artifact_store_unavailable",
        "cannot create the artifact store at " + root.string() + ": " + ec.message());
  }
  return std::shared_ptr<ArtifactStore>(new ArtifactStore(root));
}

std::filesystem::path ArtifactStore::pathFor(const std::string& sha256) const {
  return root_ / "sha256" / sha256;
}

common::Result<std::unique_ptr<ArtifactStore::Upload>> ArtifactStore::beginUpload(
    const std::string& expected_sha256, std::uint64_t expected_size) {
  if (!isSha256Hex(expected_sha256)) {
    return common::invalidArgument(
        "invalid_sha256", "the expected SHA-256 must be 64 lower-case hex digits", "sha256");
  }
  PROV_ASSIGN(auto upload, detail::FileUpload::create(root_ / "tmp", pathFor(expected_sha256),
                                                      expected_sha256, expected_size));
  return std::unique_ptr<Upload>(std::move(upload));
}

common::Result<StoredArtifact> ArtifactStore::importFile(const std::filesystem::path& file,
                                                         const std::string& expected_sha256) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  if (ec || !in) return common::unavailable("artifact_unreadable", "cannot read " + file.string());
  PROV_ASSIGN(auto upload, beginUpload(expected_sha256, size));
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    PROV_TRY(upload->write(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount()))));
  }
  if (in.bad()) return common::unavailable("artifact_unreadable", "cannot read " + file.string());
  return upload->commit();
}

common::Result<StoredArtifact> ArtifactStore::verify(const Artifact& artifact) {
  const std::string field = "artifacts[" + std::string(toString(artifact.kind)) + "]";
  if (!isSha256Hex(artifact.sha256)) {
    return artifactError("artifact_missing", field, "the artifact's SHA-256 is not valid");
  }
  const auto path = pathFor(artifact.sha256);
  const FileStat stat = statFile(path);
  if (!stat.exists) {
    return artifactError("artifact_missing", field,
                         "the " + std::string(toString(artifact.kind)) + " artifact " +
                             artifact.sha256 + " is not in the store");
  }
  if (stat.size != artifact.size) {
    return artifactError("artifact_size_mismatch", field,
                         "the stored " + std::string(toString(artifact.kind)) + " has " +
                             std::to_string(stat.size) + " bytes, the manifest says " +
                             std::to_string(artifact.size));
  }
  {
    std::lock_guard lock(mutex_);
    auto it = verified_.find(artifact.sha256);
    if (it != verified_.end() && it->second.size == stat.size &&
        it->second.mtime_ns == stat.mtime_ns) {
      return StoredArtifact{path, stat.size};
    }
  }
  // Hashing happens outside the lock: other artifacts stay servable meanwhile. The stamp taken
  // before hashing is what gets cached, so a change during hashing is caught next time.
  PROV_ASSIGN(auto actual, sha256OfFile(path));
  std::lock_guard lock(mutex_);
  if (actual != artifact.sha256) {
    verified_.erase(artifact.sha256);
    return artifactError("artifact_digest_mismatch", field,
                         "the stored " + std::string(toString(artifact.kind)) + " " +
                             artifact.sha256 + " no longer matches its digest (tampered)");
  }
  verified_[artifact.sha256] = Stamp{stat.size, stat.mtime_ns};
  return StoredArtifact{path, stat.size};
}

common::Result<StoredArtifact> ArtifactStore::openVerified(const std::string& sha256) {
  const FileStat stat = isSha256Hex(sha256) ? statFile(pathFor(sha256)) : FileStat{};
  if (!stat.exists) {
    return common::notFound("artifact_not_found", "no artifact with that SHA-256 is stored");
  }
  Artifact artifact;
  artifact.sha256 = sha256;
  artifact.size = stat.size;
  auto verified = verify(artifact);
  if (!verified) {
    // verify() names a manifest kind; here only the digest is known.
    auto error = std::move(verified).error();
    error.field = "sha256";
    error.message = "the stored artifact " + sha256 + " no longer matches its digest (tampered)";
    return common::fail(std::move(error));
  }
  return verified;
}

}  // namespace images
