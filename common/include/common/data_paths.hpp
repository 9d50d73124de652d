// Where installed programs find their data files (migrations, openapi.yaml, simulator profiles):
// beside the executable in the install layout, the source tree only when run from the build dir.
#pragma once

#include <functional>
#include <string>

namespace common {

struct DataLocation {
  // From the executable's folder to the data, e.g. "../share/provisioner/migrations".
  std::string relative_to_executable;
  // Development fallback: the source-tree path, used only when the executable lies under
  // `build_dir` (a program run from its CMake build folder) and the installed path is absent.
  std::string source_path;
  std::string build_dir;
};

// Pure: `executable` is the program's absolute path, `exists` tells whether a path exists.
// Returns the installed path when it exists; else the source path when running from the build
// dir; else the installed path anyway, so that an error message names where it was looked for.
std::string resolveDataPath(const DataLocation& where, const std::string& executable,
                            const std::function<bool(const std::string&)>& exists);

// The same for this process (/proc/self/exe, the real file system).
std::string resolveDataPath(const DataLocation& where);

}  // namespace common
