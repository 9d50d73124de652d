// Local files the CLI sends: their SHA-256, streamed (what the service's content-addressed
// store names them by), and their whole text.
#pragma once

#include <string>

#include "common/result.hpp"

namespace provisioner::cli {

// 64 lower-case hex digits; InvalidArgument "file_unreadable" naming the file.
common::Result<std::string> sha256OfFile(const std::string& path);
// The whole file; InvalidArgument "file_unreadable" naming the file.
common::Result<std::string> readFile(const std::string& path);

}  // namespace provisioner::cli
