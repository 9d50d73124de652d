#include "monitor/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace agent::monitor {
namespace {

common::Error ioError(const std::string& what, const std::filesystem::path& path) {
  return common::unavailable("state_dir_io",
                             what + " " + path.string() + ": " + std::strerror(errno));
}

bool writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void syncFolder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename happened; only its durability across power loss is weaker
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

common::Result<void> writeFileDurably(const std::filesystem::path& target, const std::string& text,
                                      mode_t mode) {
  const std::filesystem::path tmp = target.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ioError("cannot create", tmp);
  const bool written = writeAll(fd, text) && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!written) {
    errno = saved;
    ::unlink(tmp.c_str());
    return ioError("cannot write", tmp);
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return ioError("cannot rename over", target);
  }
  syncFolder(target.parent_path());
  return common::success();
}

common::Result<std::string> readWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) {
      return common::notFound("file_missing", path.string() + " does not exist");
    }
    return ioError("cannot read", path);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace agent::monitor
