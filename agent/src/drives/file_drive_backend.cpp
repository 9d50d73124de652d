// The file drive backend: pread/pwrite on a file or block device, overwrite with zeros in chunks.
// Reads go through the page cache, which is coherent with the writes; O_DIRECT is not used.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agent/drives_file.hpp"

namespace agent {

namespace {

constexpr std::uint32_t kBlockSize = 4096;

common::Error ioError(const std::string& what, const std::string& path) {
  return common::unavailable("drive_io_failed", what + " " + path + ": " + std::strerror(errno));
}

common::Result<void> fullPwrite(int fd, const std::uint8_t* data, std::size_t size,
                                std::uint64_t offset, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ioError("writing", path);
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return common::success();
}

}  // namespace

FileDriveBackend::FileDriveBackend(std::vector<std::string> paths, std::uint64_t chunk_bytes)
    : paths_(std::move(paths)), chunk_bytes_(std::max<std::uint64_t>(chunk_bytes, kBlockSize)) {}

FileDriveBackend::~FileDriveBackend() {
  for (auto& [path, file] : open_) ::close(file.fd);
}

common::Result<FileDriveBackend::Open*> FileDriveBackend::open(const std::string& path) {
  if (auto found = open_.find(path); found != open_.end()) return &found->second;
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return ioError("opening", path);
  off_t end = ::lseek(fd, 0, SEEK_END);  // the size of a file and of a block device alike
  if (end < 0) {
    common::Error error = ioError("sizing", path);
    ::close(fd);
    return error;
  }
  return &(open_[path] = Open{fd, static_cast<std::uint64_t>(end), false, 0});
}

common::Result<std::vector<DriveInfo>> FileDriveBackend::listDrives() {
  std::vector<DriveInfo> drives;
  for (const std::string& path : paths_) {
    PROV_ASSIGN(Open * file, open(path));
    DriveInfo info;
    info.id = path;
    info.serial = path;
    info.model = "file";
    info.interface = "file";
    info.capacity_bytes = file->size;
    info.block_size = kBlockSize;
    info.capabilities.overwrite = true;
    drives.push_back(std::move(info));
  }
  return drives;
}

common::Result<void> FileDriveBackend::readBlock(const DriveInfo& drive, std::uint64_t lba,
                                                 std::span<std::uint8_t> out) {
  PROV_ASSIGN(Open * file, open(drive.id));
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(file->fd, out.data() + done, out.size() - done,
                        static_cast<off_t>(lba * drive.block_size + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ioError("reading", drive.id);
    if (n == 0)
      return common::invalidArgument("lba_out_of_range", "reading past the end of " + drive.id);
    done += static_cast<std::size_t>(n);
  }
  return common::success();
}

common::Result<void> FileDriveBackend::writeBlock(const DriveInfo& drive, std::uint64_t lba,
                                                  std::span<const std::uint8_t> data) {
  PROV_ASSIGN(Open * file, open(drive.id));
  if ((lba + 1) * drive.block_size > file->size) {
    return common::invalidArgument("lba_out_of_range", "writing past the end of " + drive.id);
  }
  return fullPwrite(file->fd, data.data(), data.size(), lba * drive.block_size, drive.id);
}

common::Result<void> FileDriveBackend::startErase(const DriveInfo& drive, EraseMethod method) {
  if (method != EraseMethod::kOverwrite) {
    return common::invalidArgument("unsupported_method", "a file can only be overwritten, not " +
                                                             std::string(toString(method)));
  }
  PROV_ASSIGN(Open * file, open(drive.id));
  file->erasing = true;
  file->cursor = 0;
  return common::success();
}

common::Result<EraseProgress> FileDriveBackend::pollErase(const DriveInfo& drive) {
  PROV_ASSIGN(Open * file, open(drive.id));
  if (!file->erasing) return EraseProgress{true, 100};
  std::uint64_t size = std::min(chunk_bytes_, file->size - file->cursor);
  std::vector<std::uint8_t> zeros(size);
  PROV_TRY(fullPwrite(file->fd, zeros.data(), zeros.size(), file->cursor, drive.id));
  file->cursor += size;
  if (file->cursor < file->size) {
    return EraseProgress{false, 100.0 * static_cast<double>(file->cursor) / file->size};
  }
  if (::fsync(file->fd) != 0) return ioError("syncing", drive.id);
  file->erasing = false;
  return EraseProgress{true, 100};
}

}  // namespace agent
