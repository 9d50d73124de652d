// A workflow replica's liveness as PostgreSQL sees it: a session-level advisory lock held on a
// connection of its own, which the server releases the moment that connection drops (the process
// killed, the host gone). The key is random per process, so a replica restarted under the same
// name is a new one. The claim stamps the key on the runs it leases (workflow_runs.
// lease_live_key); other replicas claim the runs of a key nobody holds at once, without waiting
// for the lease to expire. Fencing by lease epoch is unchanged.
//
// A keeper thread checks the lock once a second and takes it again when its connection was lost
// (PostgreSQL restarted): every replica then loses its lock at once, and a live one must get its
// own back before the others conclude it is dead. So the claim takes over only while the
// claimer's own lock is held and has been for a grace period (EngineOptions::take_over_grace).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/result.hpp"

namespace inventory {

class ReplicaLiveness {
 public:
  // Connects to `url` and takes a lock under a fresh random key. When the database cannot be
  // reached now, the lock is not held yet (heldFor() is zero) and the keeper thread takes it
  // once it can: a replica started during a PostgreSQL restart gets its lock a second after.
  // Unavailable only when 8 random keys were all held by others.
  static common::Result<std::unique_ptr<ReplicaLiveness>> hold(const std::string& url);
  ~ReplicaLiveness();
  ReplicaLiveness(const ReplicaLiveness&) = delete;
  ReplicaLiveness& operator=(const ReplicaLiveness&) = delete;

  std::int32_t key() const { return key_; }
  // One round trip on the lock's connection; when the connection was lost (PostgreSQL
  // restarted), connects again and takes the same key. False: not held now, so other replicas
  // may take this replica's runs meanwhile (their outcomes are then fenced out here). The
  // keeper thread calls it once a second.
  bool keep();
  // How long the lock has been held without a break as the last check saw it; zero when it
  // was not held. No round trip.
  std::chrono::steady_clock::duration heldFor() const;

 private:
  ReplicaLiveness(std::string url, std::int32_t key);
  bool takeLock();
  void keeperLoop();

  std::string url_;
  std::int32_t key_;
  std::mutex mutex_;
  struct Session;  // the lock's own connection (libpqxx stays in the .cpp)
  std::unique_ptr<Session> session_;
  // steady_clock ticks when the lock was last taken; 0 while it is not held.
  std::atomic<std::chrono::steady_clock::rep> held_since_{0};
  std::mutex keeper_mutex_;
  std::condition_variable keeper_cv_;
  bool stopping_ = false;
  std::thread keeper_;
};

}  // namespace inventory
