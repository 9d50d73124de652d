// A TCP proxy in front of a real server that drops chosen connections the moment they are
// accepted, the way a flapping network or a restarting load balancer does.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace testing {

class FlakyProxy {
 public:
  // `drop(n)`: whether the n-th accepted connection (0-based) is closed without a byte.
  FlakyProxy(int upstream_port, std::function<bool(int)> drop);
  ~FlakyProxy();
  FlakyProxy(const FlakyProxy&) = delete;
  FlakyProxy& operator=(const FlakyProxy&) = delete;

  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  int dropped() const { return dropped_.load(); }

 private:
  void acceptLoop();
  void relay(int client_fd);

  int upstream_port_;
  std::function<bool(int)> drop_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<int> dropped_{0};
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> relays_;
  std::vector<int> open_fds_;
};

}  // namespace testing
