#include "flaky_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

namespace testing {
namespace {

int listenOnEphemeralPort(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 64) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  port = ntohs(addr.sin_port);
  return fd;
}

int connectTo(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Copies both ways until either side closes or the proxy stops.
void pump(int a, int b, const std::atomic<bool>& stopping) {
  char buffer[16384];
  pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  while (!stopping) {
    const int ready = ::poll(fds, 2, 100);
    if (ready < 0) return;
    if (ready == 0) continue;
    for (int i = 0; i < 2; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) return;
      if (::send(fds[1 - i].fd, buffer, static_cast<size_t>(n), MSG_NOSIGNAL) != n) return;
    }
  }
}

}  // namespace

FlakyProxy::FlakyProxy(int upstream_port, std::function<bool(int)> drop)
    : upstream_port_(upstream_port), drop_(std::move(drop)) {
  listen_fd_ = listenOnEphemeralPort(port_);
  acceptor_ = std::thread([this] { acceptLoop(); });
}

FlakyProxy::~FlakyProxy() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : relays_) t.join();
  for (int fd : open_fds_) ::close(fd);
}

void FlakyProxy::acceptLoop() {
  while (!stopping_) {
    const int client = ::accept(listen_fd_, nullptr, nullptr);
    if (client < 0) return;
    const int n = accepted_++;
    if (drop_(n)) {
      ++dropped_;
      linger hard{1, 0};  // RST, not FIN: the client sees the connection reset
      ::setsockopt(client, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
      ::close(client);
      continue;
    }
    std::lock_guard lock(mutex_);
    relays_.emplace_back([this, client] { relay(client); });
  }
}

void FlakyProxy::relay(int client_fd) {
  const int upstream = connectTo(upstream_port_);
  {
    std::lock_guard lock(mutex_);
    open_fds_.push_back(client_fd);
    if (upstream >= 0) open_fds_.push_back(upstream);
  }
  if (upstream >= 0) pump(client_fd, upstream, stopping_);
  std::lock_guard lock(mutex_);
  ::shutdown(client_fd, SHUT_RDWR);
  if (upstream >= 0) ::shutdown(upstream, SHUT_RDWR);
  // Closed at destruction only: closing here could reuse a number still in open_fds_.
}

}  // namespace testing
