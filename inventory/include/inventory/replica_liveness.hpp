// A workflow replica's liveness as PostgreSQL sees it: a session-level advisory lock held on a
// connection of its own, which the server releases the moment that connection drops (the process
// killed, the host gone). The key is random per process, so a replica restarted under the same
// name is a new one. The claim stamps the key on the runs it leases (workflow_runs.
// lease_live_key); other replicas claim the runs of a key nobody holds at once, without waiting
// for the lease to expire. Fencing by lease epoch is unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "common/result.hpp"

namespace inventory {

class ReplicaLiveness {
 public:
  // Connects to `url` and takes a lock under a fresh random key. Unavailable when the database
  // cannot be reached.
  static common::Result<std::unique_ptr<ReplicaLiveness>> hold(const std::string& url);
  ~ReplicaLiveness();
  ReplicaLiveness(const ReplicaLiveness&) = delete;
  ReplicaLiveness& operator=(const ReplicaLiveness&) = delete;

  std::int32_t key() const { return key_; }
  // One round trip on the lock's connection; when the connection was lost (PostgreSQL
  // restarted), connects again and takes the same key. False: not held now, so other replicas
  // may take this replica's runs meanwhile (their outcomes are then fenced out here).
  bool keep();

 private:
  ReplicaLiveness(std::string url, std::int32_t key);
  bool takeLock();

  std::string url_;
  std::int32_t key_;
  std::mutex mutex_;
  struct Session;  // the lock's own connection (libpqxx stays in the .cpp)
  std::unique_ptr<Session> session_;
};

}  // namespace inventory
