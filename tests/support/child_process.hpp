// A child process with its stderr piped back, for end-to-end tests of the real binaries.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace testing {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();  // kills the child if it still runs

  // Reads stderr until a line contains `needle` (returned), EOF, or the deadline passes.
  std::optional<std::string> waitForLine(const std::string& needle, std::chrono::seconds timeout);
  // Everything read from stderr so far.
  const std::string& output() const { return output_; }
  void signal(int sig);
  // Exit status once the child ends (reads the rest of stderr), or nullopt after the timeout.
  std::optional<int> wait(std::chrono::seconds timeout);

 private:
  bool readSome(std::chrono::milliseconds timeout);
  pid_t pid_ = -1;
  int stderr_fd_ = -1;
  std::string output_;
  std::size_t scanned_ = 0;
};

// Runs a command to completion and returns {exit status, stdout}.
std::pair<int, std::string> runCommand(const std::vector<std::string>& argv);

}  // namespace testing
