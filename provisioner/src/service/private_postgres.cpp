#include "provisioner/service/private_postgres.hpp"

#include <pwd.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <filesystem>

#include "common/subprocess.hpp"
#include "provisioner/service/state_dir_access.hpp"

namespace provisioner::service {
namespace fs = std::filesystem;
using common::runSubprocess;
namespace {

constexpr const char* kDatabaseName = "provisioner";
constexpr const char* kSuperuser = "postgres";
constexpr const char* kServerUser = "postgres";  // the OS user the server runs as when we are root

std::string findBinDir() {
  if (const char* env = std::getenv("PROVISIONER_PG_BIN"); env != nullptr && *env != '\0') {
    return env;
  }
  std::string best;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    fs::path bin = entry.path() / "bin";
    if (fs::exists(bin / "initdb") && bin.string() > best) best = bin.string();
  }
  return best;
}

// libpq URIs need the socket folder percent-encoded in the host parameter.
std::string percentEncode(const std::string& s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

common::Error startFailure(const std::string& what, const std::string& log) {
  return common::unavailable("private_postgres_failed",
                             "private PostgreSQL: " + what + " failed; see " + log);
}

common::Result<void> prepareFolder(const std::string& state_dir, const fs::path& root,
                                   const std::vector<std::string>& secret_files) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) {
    return common::fail(common::unavailable(
        "state_dir_unusable", "cannot create " + root.string() + ": " + ec.message()));
  }
  if (geteuid() == 0) {
    const passwd* pw = getpwnam(kServerUser);
    if (pw == nullptr || chown(root.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return common::fail(common::unavailable(
          "state_dir_unusable", "cannot hand " + root.string() + " to the postgres user"));
    }
  }
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (geteuid() == 0)
    PROV_TRY(letServerUserIn(state_dir, root.string(), kServerUser, secret_files));
  return common::success();
}

common::Result<void> run(const std::vector<std::string>& argv, const std::string& log,
                         const std::string& what) {
  auto rc = runSubprocess(argv, {.log_file = log, .run_as = kServerUser});
  if (!rc) return common::fail(std::move(rc).error());
  if (*rc != 0) return common::fail(startFailure(what, log));
  return common::success();
}

}  // namespace

common::Result<std::unique_ptr<PrivatePostgres>> PrivatePostgres::start(
    const std::string& state_dir, const std::vector<std::string>& secret_files) {
  const std::string bin = findBinDir();
  if (bin.empty()) {
    return common::fail(common::unavailable(
        "postgres_not_installed",
        "no PostgreSQL server found under /usr/lib/postgresql (install postgresql-15, or pass "
        "--database-url)"));
  }
  const fs::path root = fs::absolute(fs::path(state_dir) / "postgres").lexically_normal();
  PROV_TRY(prepareFolder(state_dir, root, secret_files));
  const std::string data = (root / "data").string();
  const std::string log = (root / "server.log").string();
  const bool fresh = !fs::exists(root / "data" / "PG_VERSION");
  if (fresh) {
    spdlog::info("initialising private PostgreSQL in {}", data);
    PROV_TRY(run({bin + "/initdb", "-D", data, "-U", kSuperuser, "-A", "trust", "-E", "UTF8"},
                 (root / "initdb.log").string(), "initdb"));
  }
  // A server already running on this folder (another command of ours) is used, not stopped.
  auto status = runSubprocess({bin + "/pg_ctl", "-D", data, "status"},
                              {.log_file = log, .run_as = kServerUser});
  const bool start_here = !status || *status != 0;
  if (start_here) {
    // Unix socket only, in a folder only the server's user can enter: nothing listens on TCP.
    PROV_TRY(
        run({bin + "/pg_ctl", "-D", data, "-l", log, "-w", "-t", "60", "-o",
             "-k " + root.string() + " -c listen_addresses='' -c max_connections=200", "start"},
            log, "pg_ctl start"));
  }
  if (fresh) {
    PROV_TRY(run({bin + "/createdb", "-h", root.string(), "-U", kSuperuser, kDatabaseName}, log,
                 "createdb"));
  }
  std::string url = std::string("postgresql://") + kSuperuser + "@/" + kDatabaseName +
                    "?host=" + percentEncode(root.string());
  spdlog::info("private PostgreSQL running under {}", root.string());
  auto pg = std::unique_ptr<PrivatePostgres>(new PrivatePostgres(bin, root.string(), url));
  pg->running_ = start_here;
  return pg;
}

void PrivatePostgres::stop() {
  if (!running_) return;
  running_ = false;
  auto rc = runSubprocess({bin_dir_ + "/pg_ctl", "-D", root_ + "/data", "-m", "fast", "-w", "stop"},
                          {.log_file = root_ + "/server.log", .run_as = kServerUser});
  if (!rc || *rc != 0)
    spdlog::warn("private PostgreSQL did not stop cleanly; see {}/server.log", root_);
}

PrivatePostgres::~PrivatePostgres() {
  stop();
}

}  // namespace provisioner::service
