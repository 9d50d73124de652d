#include "common/subprocess.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace common {
namespace {

constexpr std::size_t kMaxOutput = 64 * 1024;

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

Result<void> resolveUser(const std::string& user, ChildPlan& plan) {
  if (user.empty() || geteuid() != 0) return success();
  const passwd* pw = getpwnam(user.c_str());
  if (pw == nullptr) {
    return fail(unavailable("missing_system_user", "system user '" + user + "' does not exist"));
  }
  plan.switch_user = true;
  plan.uid = pw->pw_uid;
  plan.gid = pw->pw_gid;
  return success();
}

// Reads what the child writes until it closes its end or the deadline passes; false on timeout.
bool collect(int fd, std::string& out, std::chrono::steady_clock::time_point deadline,
             bool bounded) {
  char buf[4096];
  for (;;) {
    int wait_ms = -1;
    if (bounded) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      wait_ms = static_cast<int>(left.count());
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return false;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (out.size() < kMaxOutput) out.append(buf, static_cast<std::size_t>(n));
  }
}

// Waits for the child; kills it at the deadline (when bounded). False on timeout.
bool reap(pid_t pid, int& status, std::chrono::steady_clock::time_point deadline, bool bounded) {
  for (;;) {
    const pid_t done = waitpid(pid, &status, bounded ? WNOHANG : 0);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return true;  // not ours any more: treat as ended
    if (bounded && std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return false;
    }
    if (bounded) usleep(10000);
  }
}

}  // namespace

Result<int> runSubprocess(const std::vector<std::string>& argv, const SubprocessOptions& options) {
  if (argv.empty()) return fail(internalError("runSubprocess: empty argv"));
  ChildPlan plan;
  std::vector<std::string> args = argv;  // stable storage for the char* array
  for (auto& a : args) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  PROV_TRY(resolveUser(options.run_as, plan));
  int pipe_fds[2] = {-1, -1};
  if (options.output != nullptr) {
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
      return fail(internalError(std::string("pipe failed: ") + std::strerror(errno)));
    }
    plan.log_fd = pipe_fds[1];
  } else {
    const std::string log = options.log_file.empty() ? "/dev/null" : options.log_file;
    plan.log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (plan.log_fd >= 0 && plan.switch_user) (void)fchown(plan.log_fd, plan.uid, plan.gid);
  }

  pid_t pid = fork();
  if (pid == 0) execChild(plan);
  if (plan.log_fd >= 0) close(plan.log_fd);
  if (pid < 0) {
    if (pipe_fds[0] >= 0) close(pipe_fds[0]);
    return fail(internalError(std::string("fork failed: ") + std::strerror(errno)));
  }
  const bool bounded = options.timeout.count() > 0;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool in_time = true;
  if (pipe_fds[0] >= 0) {
    in_time = collect(pipe_fds[0], *options.output, deadline, bounded);
    close(pipe_fds[0]);
    if (!in_time) kill(pid, SIGKILL);
  }
  int status = 0;
  in_time = reap(pid, status, deadline, bounded) && in_time;
  if (!in_time) {
    return fail(Error{ErrorKind::kTimeout,
                      "program_timeout",
                      argv[0] + " ran longer than " + std::to_string(options.timeout.count()) +
                          " ms and was killed",
                      {},
                      {}});
  }
  if (WIFEXITED(status)) {
    if (WEXITSTATUS(status) == 127) {
      return fail(unavailable("program_not_found", "cannot run " + argv[0]));
    }
    return WEXITSTATUS(status);
  }
  return fail(internalError(argv[0] + " was killed by a signal"));
}

}  // namespace common
