// The file drive backend: a regular file or a block device path (a loop device) treated as a
// drive that can only be overwritten (NIST Clear). It runs the real I/O path of sanitizeDrive.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/drives.hpp"

namespace agent {

class FileDriveBackend : public DriveBackend {
 public:
  // `chunk_bytes`: how much of the overwrite each pollErase writes (progress and the deadline are
  // checked between chunks).
  explicit FileDriveBackend(std::vector<std::string> paths,
                            std::uint64_t chunk_bytes = 16ULL << 20);
  ~FileDriveBackend() override;
  FileDriveBackend(const FileDriveBackend&) = delete;
  FileDriveBackend& operator=(const FileDriveBackend&) = delete;

  std::string name() const override { return "file"; }
  // Each path as one drive: serial and id the path, interface "file", capabilities overwrite only.
  common::Result<std::vector<DriveInfo>> listDrives() override;
  common::Result<void> readBlock(const DriveInfo& drive, std::uint64_t lba,
                                 std::span<std::uint8_t> out) override;
  common::Result<void> writeBlock(const DriveInfo& drive, std::uint64_t lba,
                                  std::span<const std::uint8_t> data) override;
  // Only EraseMethod::kOverwrite; anything else is refused.
  common::Result<void> startErase(const DriveInfo& drive, EraseMethod method) override;
  // Writes the next chunk of zeros; done once every byte is zero and synced to the device.
  common::Result<EraseProgress> pollErase(const DriveInfo& drive) override;

 private:
  struct Open {
    int fd = -1;
    std::uint64_t size = 0;
    bool erasing = false;
    std::uint64_t cursor = 0;  // bytes overwritten so far
  };
  common::Result<Open*> open(const std::string& path);

  std::vector<std::string> paths_;
  std::uint64_t chunk_bytes_;
  std::map<std::string, Open> open_;
};

}  // namespace agent
