// The settings file of `provisioner` (/etc/provisioner/provisioner.conf in the package): one
// `key = value` per line, the keys being the flags without "--"; the command line wins.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace provisioner::service {

// Pure. The flags the file's text stands for ("--listen=0.0.0.0:8080", "--no-workflows"). Blank
// lines and lines starting with '#' are skipped; a value may be wrapped in double quotes; a
// switch takes true or false. Unknown keys, keys set twice and lines without '=' are errors
// naming `source`:LINE and the key.
common::Result<std::vector<std::string>> configFileFlags(std::string_view text,
                                                         const std::string& source);

// Pure. `args` with `file_flags` placed after the command words and before the command's own
// flags, so that a flag given on the command line overrides the file.
std::vector<std::string> mergeConfigFlags(const std::vector<std::string>& args,
                                          const std::vector<std::string>& file_flags);

// The file named by --config (which must then exist), else `default_path` when it exists, read
// and merged into `args`. Unchanged args when there is no file.
common::Result<std::vector<std::string>> withConfigFile(const std::vector<std::string>& args,
                                                        const std::string& default_path);

}  // namespace provisioner::service
