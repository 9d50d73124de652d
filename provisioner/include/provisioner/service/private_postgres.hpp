// A private PostgreSQL cluster under the service's state folder, for when no --database-url is
// given: initialised on first use, started on a Unix socket only, stopped when this object dies.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace provisioner::service {

class PrivatePostgres {
 public:
  // Initialises `state_dir`/postgres when new, starts the server and creates the database. As
  // root the server runs as postgres; a state dir it cannot enter gets a search-only ACL entry
  // for it, unless that would expose one of `secret_files` (state_dir_access.hpp).
  static common::Result<std::unique_ptr<PrivatePostgres>> start(
      const std::string& state_dir, const std::vector<std::string>& secret_files);
  ~PrivatePostgres();
  PrivatePostgres(const PrivatePostgres&) = delete;
  PrivatePostgres& operator=(const PrivatePostgres&) = delete;

  // libpq URL of the service's database on this cluster.
  const std::string& url() const { return url_; }
  // Stops the server if this object started it.
  void stop();

 private:
  PrivatePostgres(std::string bin_dir, std::string root, std::string url)
      : bin_dir_(std::move(bin_dir)), root_(std::move(root)), url_(std::move(url)) {}
  std::string bin_dir_;
  std::string root_;  // state_dir/postgres: data/, socket, logs
  std::string url_;
  bool running_ = false;  // started by us, so ours to stop
};

}  // namespace provisioner::service
