// The content-addressed artifact store: ROOT/sha256/<hex>, written atomically, checked by digest.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "images/manifest.hpp"

namespace images {

// True for 64 lower-case hex digits.
bool isSha256Hex(std::string_view text);

// SHA-256 of a file, streamed; Unavailable "artifact_unreadable" naming the file.
common::Result<std::string> sha256OfFile(const std::filesystem::path& file);

struct StoredArtifact {
  std::filesystem::path path;
  std::uint64_t size = 0;
};

class ArtifactStore {
 public:
  // Creates ROOT/sha256 and ROOT/tmp if needed; Unavailable "artifact_store_unavailable" otherwise.
  static common::Result<std::shared_ptr<ArtifactStore>> open(const std::filesystem::path& root);

  // A streamed upload into ROOT/tmp; commit() checks digest (and size when expected_size > 0)
  // and renames into place. Errors: InvalidArgument "artifact_digest_mismatch" /
  // "artifact_size_mismatch" (the temporary file is removed). Destroying an uncommitted upload
  // removes its temporary file.
  class Upload {
   public:
    virtual ~Upload() = default;
    virtual common::Result<void> write(std::string_view chunk) = 0;
    virtual common::Result<StoredArtifact> commit() = 0;
  };
  common::Result<std::unique_ptr<Upload>> beginUpload(const std::string& expected_sha256,
                                                      std::uint64_t expected_size = 0);
  // Copies a local file in through an upload (used by tests and the local CLI).
  common::Result<StoredArtifact> importFile(const std::filesystem::path& file,
                                            const std::string& expected_sha256);

  // Re-hashes the stored file unless it was verified before with the same size and mtime.
  // Errors (InvalidArgument, field "artifacts[<kind>]"): "artifact_missing",
  // "artifact_size_mismatch", "artifact_digest_mismatch" (a tampered file).
  common::Result<StoredArtifact> verify(const Artifact& artifact);
  // For serving: the verified file of that digest; NotFound "artifact_not_found", or the
  // verify() errors when the file no longer matches its name.
  common::Result<StoredArtifact> openVerified(const std::string& sha256);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path pathFor(const std::string& sha256) const;

 private:
  explicit ArtifactStore(std::filesystem::path root) : root_(std::move(root)) {}
  struct Stamp {
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
  };
  std::filesystem::path root_;
  std::mutex mutex_;
  std::map<std::string, Stamp> verified_;  // sha256 -> the file stamp last verified
};

}  // namespace images
