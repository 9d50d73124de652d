#include "provisioner/service/state_dir_access.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <spdlog/spdlog.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "common/subprocess.hpp"

namespace provisioner::service {
namespace fs = std::filesystem;
using common::runSubprocess;
namespace {

constexpr const char* kAclXattr = "system.posix_acl_access";
// linux/posix_acl_xattr.h: a version header, then {tag, perm, id} entries sorted by tag.
constexpr std::uint32_t kAclVersion = 2;
constexpr std::uint16_t kUserObj = 0x01, kUser = 0x02, kGroupObj = 0x04, kMask = 0x10,
                        kOther = 0x20;
constexpr std::uint32_t kUndefinedId = 0xffffffff;
constexpr std::uint16_t kSearch = 1;

void put(std::string& out, std::uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void entry(std::string& out, std::uint16_t tag, std::uint16_t perm, std::uint32_t id) {
  put(out, tag, 2);
  put(out, perm, 2);
  put(out, id, 4);
}

std::string octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Asked of the kernel as that user (so ACLs count): can it search every folder down to `path`?
bool canReach(const std::string& path, const std::string& user) {
  auto rc = runSubprocess({"/usr/bin/test", "-x", path}, {.run_as = user});
  return rc && *rc == 0;
}

common::Error blocked(const std::string& dir, const std::string& user, const std::string& why) {
  return common::unavailable("state_dir_unreachable",
                             "private PostgreSQL: its server runs as user '" + user +
                                 "', which cannot enter " + dir +
                                 (why.empty() ? "" : " (" + why + ")") + "; give '" + user +
                                 "' search permission only (setfacl -m u:" + user + ":x " + dir +
                                 "), or use --database-url");
}

// The first folder on the way to `dir` (itself excluded) that `user` cannot search.
std::string blockingAncestor(const fs::path& dir, const std::string& user) {
  fs::path walked;
  for (const auto& part : dir.parent_path()) {
    walked /= part;
    if (!canReach(walked.string(), user)) return walked.string();
  }
  return {};
}

}  // namespace

std::string searchOnlyAcl(mode_t mode, uid_t uid) {
  const std::uint16_t group = (mode >> 3) & 7;
  std::string out;
  put(out, kAclVersion, 4);
  entry(out, kUserObj, (mode >> 6) & 7, kUndefinedId);
  entry(out, kUser, kSearch, uid);
  entry(out, kGroupObj, group, kUndefinedId);
  entry(out, kMask, group | kSearch, kUndefinedId);
  entry(out, kOther, mode & 7, kUndefinedId);
  return out;
}

common::Result<void> letServerUserIn(const std::string& state_dir, const std::string& folder,
                                     const std::string& user,
                                     const std::vector<std::string>& secret_files) {
  if (canReach(folder, user)) return common::success();
  const fs::path dir = fs::absolute(state_dir).lexically_normal();
  if (auto ancestor = blockingAncestor(dir, user); !ancestor.empty()) {
    return common::fail(blocked(ancestor, user, "a folder above the state dir " + dir.string()));
  }
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    return common::fail(blocked(dir.string(), user, std::strerror(errno)));
  }
  // Search on the state dir lets `user` open any file in it whose own mode allows: refuse when
  // that would include a key.
  for (const auto& file : secret_files) {
    struct stat key {};
    if (stat(file.c_str(), &key) == 0 && (key.st_mode & 077) != 0) {
      return common::fail(common::unavailable(
          "state_dir_unreachable",
          "private PostgreSQL: its server runs as user '" + user + "', which cannot enter " +
              dir.string() + ", and letting it in would expose " + file + " (mode " +
              octal(key.st_mode) + "); chmod 600 " + file + " first, or use --database-url"));
    }
  }
  if (getxattr(dir.c_str(), kAclXattr, nullptr, 0) > 0) {
    return common::fail(blocked(dir.string(), user, "it has an ACL we do not rewrite"));
  }
  const passwd* pw = getpwnam(user.c_str());
  if (pw == nullptr) {
    return common::fail(
        common::unavailable("missing_system_user", "system user '" + user + "' does not exist"));
  }
  const std::string acl = searchOnlyAcl(st.st_mode, pw->pw_uid);
  if (setxattr(dir.c_str(), kAclXattr, acl.data(), acl.size(), 0) != 0) {
    return common::fail(
        blocked(dir.string(), user, std::string("cannot set an ACL: ") + std::strerror(errno)));
  }
  spdlog::info("gave user '{}' search-only access to {} (an ACL entry) for the private database",
               user, dir.string());
  if (!canReach(folder, user)) return common::fail(blocked(dir.string(), user, ""));
  return common::success();
}

}  // namespace provisioner::service
