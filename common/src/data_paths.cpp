#include "common/data_paths.hpp"

#include <filesystem>

namespace common {
namespace fs = std::filesystem;
namespace {

// True when `path` is `dir` or lies below it (both absolute and normalised).
bool isUnder(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty()) continue;  // the trailing "" of "/a/b/"
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

}  // namespace

std::string resolveDataPath(const DataLocation& where, const std::string& executable,
                            const std::function<bool(const std::string&)>& exists) {
  const fs::path exe = fs::path(executable).lexically_normal();
  const std::string installed =
      (exe.parent_path() / where.relative_to_executable).lexically_normal().string();
  if (exists(installed)) return installed;
  if (!where.build_dir.empty() && !where.source_path.empty() &&
      isUnder(exe, fs::path(where.build_dir).lexically_normal())) {
    return where.source_path;
  }
  return installed;
}

std::string resolveDataPath(const DataLocation& where) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const std::string executable = ec ? (fs::current_path(ec) / "unknown").string() : exe.string();
  return resolveDataPath(where, executable, [](const std::string& p) {
    std::error_code e;
    return fs::exists(p, e);
  });
}

}  // namespace common
