#include "artifact_upload.hpp"
#include "common/hex.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/secret_box.hpp"

namespace images::detail {
namespace {

common::Error storeUnavailable(const std::string& what) {
  return common::unavailable("artifact_store_unavailable",
                             what + ": " + std::string(std::strerror(errno)));
}

}  // namespace

common::Result<std::unique_ptr<FileUpload>> FileUpload::create(const std::filesystem::path& tmp_dir,
                                                               std::filesystem::path final_path,
                                                               std::string expected_sha256,
                                                               std::uint64_t expected_size) {
  auto tmp_path = tmp_dir / ("upload-" + common::hexOf(common::randomBytes(12)));
  const int fd = ::open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return storeUnavailable("cannot create " + tmp_path.string());
  return std::unique_ptr<FileUpload>(new FileUpload(std::move(tmp_path), fd, std::move(final_path),
                                                    std::move(expected_sha256), expected_size));
}

FileUpload::FileUpload(std::filesystem::path tmp_path, int fd, std::filesystem::path final_path,
                       std::string expected_sha256, std::uint64_t expected_size)
    : tmp_path_(std::move(tmp_path)),
      fd_(fd),
      final_path_(std::move(final_path)),
      expected_sha256_(std::move(expected_sha256)),
      expected_size_(expected_size) {}

FileUpload::~FileUpload() {
  if (!finished_) discard();
}

void FileUpload::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_path_.c_str());
  finished_ = true;
}

common::Error FileUpload::failAndDiscard(common::Error error) {
  discard();
  return error;
}

common::Result<void> FileUpload::write(std::string_view chunk) {
  if (finished_) return common::internalError("write after the upload was committed or failed");
  if (expected_size_ > 0 && written_ + chunk.size() > expected_size_) {
    return failAndDiscard(common::invalidArgument(
        "artifact_size_mismatch",
        "the upload is larger than the expected " + std::to_string(expected_size_) + " bytes",
        "size"));
  }
  hash_.update(chunk);
  while (!chunk.empty()) {
    const ssize_t n = ::write(fd_, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failAndDiscard(storeUnavailable("cannot write " + tmp_path_.string()));
    chunk.remove_prefix(static_cast<std::size_t>(n));
    written_ += static_cast<std::uint64_t>(n);
  }
  return common::success();
}

common::Result<StoredArtifact> FileUpload::commit() {
  if (finished_) return common::internalError("commit after the upload was committed or failed");
  if (expected_size_ > 0 && written_ != expected_size_) {
    return failAndDiscard(common::invalidArgument("artifact_size_mismatch",
                                                  "received " + std::to_string(written_) +
                                                      " bytes, expected " +
                                                      std::to_string(expected_size_),
                                                  "size"));
  }
  const std::string actual = hash_.finishHex();
  if (actual.empty()) return failAndDiscard(common::internalError("SHA-256 failed"));
  if (actual != expected_sha256_) {
    return failAndDiscard(common::invalidArgument(
        "artifact_digest_mismatch",
        "the upload's SHA-256 is " + actual + ", expected " + expected_sha256_, "sha256"));
  }
  // Durable before visible: the name promises this content, so the content lands first.
  const bool synced = ::fsync(fd_) == 0;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) {
    return failAndDiscard(storeUnavailable("cannot flush " + tmp_path_.string()));
  }
  if (::rename(tmp_path_.c_str(), final_path_.c_str()) != 0) {
    return failAndDiscard(storeUnavailable("cannot move the upload into place"));
  }
  finished_ = true;
  return StoredArtifact{final_path_, written_};
}

}  // namespace images::detail
