// The private PostgreSQL in a state dir only root may enter (a fresh `mktemp -d`, mode 0700):
// the postgres server user gets search on it and nothing more, never the keys beside it.
#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/child_process.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

bool rootWithPostgresUser() {
  return geteuid() == 0 && getpwnam("postgres") != nullptr;
}

fs::path privateStateDir(const std::string& key_text, fs::perms key_mode) {
  char tmpl[] = "/tmp/prov-state-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);  // mode 0700, owned by root
  const fs::path dir = tmpl;
  std::ofstream(dir / "secret.key") << key_text;
  fs::permissions(dir / "secret.key", key_mode, fs::perm_options::replace);
  return dir;
}

int asPostgres(const std::vector<std::string>& argv) {
  std::vector<std::string> all{"/usr/sbin/runuser", "-u", "postgres", "--"};
  all.insert(all.end(), argv.begin(), argv.end());
  return testing::runCommand(all).first;
}

}  // namespace

TEST_CASE("provisioner migrate as root works in a fresh 0700 state dir, keys kept private",
          "[e2e][service][state_dir]") {
  if (!rootWithPostgresUser()) {
    WARN("needs root and a postgres user; skipped");
    return;
  }
  const fs::path state = privateStateDir("c2VjcmV0IGtleSBmb3IgdGhlIGUyZSB0ZXN0IG9ubHkhISE=\n",
                                         fs::perms::owner_read | fs::perms::owner_write);
  auto [rc, out] = testing::runCommand({PROVISIONER_BINARY, "migrate", "--state-dir", state});
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(fs::exists(state / "postgres" / "data" / "PG_VERSION"));
  // Nobody but postgres gained anything, and postgres only search: no listing, no key.
  struct stat st {};
  REQUIRE(stat(state.c_str(), &st) == 0);
  CHECK((st.st_mode & 07) == 0);
  CHECK(asPostgres({"/usr/bin/test", "-x", state}) == 0);
  CHECK(asPostgres({"/usr/bin/ls", state}) != 0);
  CHECK(asPostgres({"/usr/bin/cat", state / "secret.key"}) != 0);
  // Again, on the initialised folder.
  CHECK(testing::runCommand({PROVISIONER_BINARY, "migrate", "--state-dir", state}).first == 0);
  fs::remove_all(state);
}

TEST_CASE("provisioner refuses at once when letting postgres in would expose a key",
          "[e2e][service][state_dir]") {
  if (!rootWithPostgresUser()) {
    WARN("needs root and a postgres user; skipped");
    return;
  }
  const fs::path state = privateStateDir("c2VjcmV0IGtleSBmb3IgdGhlIGUyZSB0ZXN0IG9ubHkhISE=\n",
                                         fs::perms::owner_read | fs::perms::owner_write |
                                             fs::perms::group_read | fs::perms::others_read);
  testing::ChildProcess migrate({PROVISIONER_BINARY, "migrate", "--state-dir", state});
  auto code = migrate.wait(60s);
  INFO(migrate.output());
  REQUIRE(code);
  CHECK(*code == 1);
  CHECK(migrate.output().find((state / "secret.key").string()) != std::string::npos);
  CHECK(migrate.output().find("chmod 600") != std::string::npos);
  // Nothing was initialised and the folder was left as it was.
  CHECK_FALSE(fs::exists(state / "postgres" / "data"));
  CHECK(getxattr(state.c_str(), "system.posix_acl_access", nullptr, 0) < 0);
  fs::remove_all(state);
}
