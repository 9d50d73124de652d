#include "support/child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace testing {
namespace {

std::vector<char*> cArgv(std::vector<std::string>& args) {
  std::vector<char*> out;
  for (auto& a : args) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> args = argv;
  auto c_args = cArgv(args);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv(c_args[0], c_args.data());
    _exit(127);
  }
  close(fds[1]);
  stderr_fd_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stderr_fd_ >= 0) close(stderr_fd_);
}

bool ChildProcess::readSome(std::chrono::milliseconds timeout) {
  pollfd p{stderr_fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  std::array<char, 4096> buf{};
  ssize_t n = read(stderr_fd_, buf.data(), buf.size());
  if (n <= 0) return false;
  output_.append(buf.data(), static_cast<std::size_t>(n));
  return true;
}

std::optional<std::string> ChildProcess::waitForLine(const std::string& needle,
                                                     std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto pos = output_.find(needle, scanned_);
    if (pos != std::string::npos) {
      auto start = output_.rfind('\n', pos);
      start = start == std::string::npos ? 0 : start + 1;
      auto end = output_.find('\n', pos);
      scanned_ = end == std::string::npos ? output_.size() : end;
      return output_.substr(start, end - start);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !readSome(left)) return std::nullopt;
  }
}

void ChildProcess::signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

std::optional<int> ChildProcess::wait(std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  // Drain stderr until EOF: the child closes it when it exits.
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{stderr_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      std::array<char, 4096> buf{};
      ssize_t n = read(stderr_fd_, buf.data(), buf.size());
      if (n <= 0) break;
      output_.append(buf.data(), static_cast<std::size_t>(n));
    }
  }
  int status = 0;
  if (waitpid(pid_, &status, 0) != pid_) return std::nullopt;
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::pair<int, std::string> runCommand(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) cmd += "'" + a + "' ";
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return {-1, ""};
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
  int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace testing
