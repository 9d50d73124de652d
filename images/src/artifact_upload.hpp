// The store's upload: a temporary file in ROOT/tmp, hashed as it is written, renamed into place.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "images/artifact_store.hpp"
#include "sha256_stream.hpp"

namespace images::detail {

class FileUpload final : public ArtifactStore::Upload {
 public:
  // Creates the temporary file; Unavailable "artifact_store_unavailable" when it cannot.
  static common::Result<std::unique_ptr<FileUpload>> create(const std::filesystem::path& tmp_dir,
                                                            std::filesystem::path final_path,
                                                            std::string expected_sha256,
                                                            std::uint64_t expected_size);
  ~FileUpload() override;
  FileUpload(const FileUpload&) = delete;
  FileUpload& operator=(const FileUpload&) = delete;

  common::Result<void> write(std::string_view chunk) override;
  common::Result<StoredArtifact> commit() override;

 private:
  FileUpload(std::filesystem::path tmp_path, int fd, std::filesystem::path final_path,
             std::string expected_sha256, std::uint64_t expected_size);
  // Closes and removes the temporary file; the upload cannot be used afterwards.
  void discard();
  common::Error failAndDiscard(common::Error error);

  std::filesystem::path tmp_path_;
  int fd_ = -1;
  std::filesystem::path final_path_;
  std::string expected_sha256_;
  std::uint64_t expected_size_ = 0;
  std::uint64_t written_ = 0;
  Sha256Stream hash_;
  bool finished_ = false;  // committed or discarded
};

}  // namespace images::detail
