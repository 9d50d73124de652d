// Files the monitor must never leave half-written: written under a temporary name, synced,
// renamed over the target, and the folder synced, so after a crash or a power loss the target is
// the old content or the new one.
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <string>

#include "common/result.hpp"

namespace agent::monitor {

common::Result<void> writeFileDurably(const std::filesystem::path& target, const std::string& text,
                                      mode_t mode);
// The whole file; NotFound "file_missing" when it does not exist.
common::Result<std::string> readWholeFile(const std::filesystem::path& path);

}  // namespace agent::monitor
