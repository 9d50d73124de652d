// SHA-256 of a local file, streamed (what the service's content-addressed store names it by).
#pragma once

#include <string>

#include "common/result.hpp"

namespace provisioner::cli {

// 64 lower-case hex digits; InvalidArgument "file_unreadable" naming the file.
common::Result<std::string> sha256OfFile(const std::string& path);

}  // namespace provisioner::cli
