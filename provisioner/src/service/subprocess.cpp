#include "provisioner/service/subprocess.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace provisioner::service {
namespace {

// Everything the child needs is resolved before fork(): only async-signal-safe calls after it.
struct ChildPlan {
  std::vector<char*> argv;
  int log_fd = -1;
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

[[noreturn]] void execChild(const ChildPlan& plan) {
  if (plan.log_fd >= 0) {
    dup2(plan.log_fd, STDOUT_FILENO);
    dup2(plan.log_fd, STDERR_FILENO);
  }
  if (plan.switch_user) {
    if (setgroups(0, nullptr) != 0 || setgid(plan.gid) != 0 || setuid(plan.uid) != 0) _exit(126);
  }
  execv(plan.argv[0], plan.argv.data());
  _exit(127);
}

}  // namespace

common::Result<int> runSubprocess(const std::vector<std::string>& argv,
                                  const SubprocessOptions& options) {
  if (argv.empty()) return common::fail(common::internalError("runSubprocess: empty argv"));
  ChildPlan plan;
  std::vector<std::string> args = argv;  // stable storage for the char* array
  for (auto& a : args) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  if (!options.run_as.empty() && geteuid() == 0) {
    const passwd* pw = getpwnam(options.run_as.c_str());
    if (pw == nullptr) {
      return common::fail(common::unavailable(
          "missing_system_user", "system user '" + options.run_as + "' does not exist"));
    }
    plan.switch_user = true;
    plan.uid = pw->pw_uid;
    plan.gid = pw->pw_gid;
  }
  const std::string log = options.log_file.empty() ? "/dev/null" : options.log_file;
  plan.log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (plan.log_fd >= 0 && plan.switch_user) (void)fchown(plan.log_fd, plan.uid, plan.gid);

  pid_t pid = fork();
  if (pid == 0) execChild(plan);
  if (plan.log_fd >= 0) close(plan.log_fd);
  if (pid < 0) {
    return common::fail(common::internalError(std::string("fork failed: ") + std::strerror(errno)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return common::fail(common::internalError("waitpid failed"));
  }
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == 127) {
      return common::fail(common::unavailable("program_not_found", "cannot run " + argv[0]));
    }
    return WEXITSTATUS(status);
  }
  return common::fail(common::internalError(argv[0] + " was killed by a signal"));
}

}  // namespace provisioner::service
