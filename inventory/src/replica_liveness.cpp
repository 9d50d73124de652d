#include "inventory/replica_liveness.hpp"

#include <pqxx/pqxx>

#include <random>

#include "queries_workflows.hpp"

namespace inventory {
namespace {

// 1..2^31-1: the key reads back the same from pg_locks.objid.
std::int32_t randomKey() {
  std::random_device device;
  return std::uniform_int_distribution<std::int32_t>(1, 0x7fffffff)(device);
}

}  // namespace

struct ReplicaLiveness::Session {
  explicit Session(const std::string& url) : conn(url) {}
  pqxx::connection conn;
};

ReplicaLiveness::ReplicaLiveness(std::string url, std::int32_t key)
    : url_(std::move(url)), key_(key) {}

ReplicaLiveness::~ReplicaLiveness() {
  {
    std::lock_guard guard(keeper_mutex_);
    stopping_ = true;
  }
  keeper_cv_.notify_all();
  if (keeper_.joinable()) keeper_.join();
}

void ReplicaLiveness::keeperLoop() {
  std::unique_lock lock(keeper_mutex_);
  while (!keeper_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
    lock.unlock();
    keep();
    lock.lock();
  }
}

std::chrono::steady_clock::duration ReplicaLiveness::heldFor() const {
  const auto since = held_since_.load();
  if (since == 0) return std::chrono::steady_clock::duration::zero();
  return std::chrono::steady_clock::now().time_since_epoch() -
         std::chrono::steady_clock::duration(since);
}

common::Result<std::unique_ptr<ReplicaLiveness>> ReplicaLiveness::hold(const std::string& url) {
  // Another process holding the same random key is a rare draw: try a few.
  for (int tries = 0; tries < 8; ++tries) {
    std::unique_ptr<ReplicaLiveness> liveness(new ReplicaLiveness(url, randomKey()));
    std::unique_lock guard(liveness->mutex_);
    const bool taken = liveness->takeLock();
    // No connection at all (the database restarting, say): the keeper takes it when it can.
    if (taken || !liveness->session_) {
      guard.unlock();
      auto* self = liveness.get();
      liveness->keeper_ = std::thread([self] { self->keeperLoop(); });
      return liveness;
    }
  }
  return common::unavailable("liveness_key_taken",
                             "cannot take the replica's liveness lock: 8 random keys were taken");
}

// With mutex_ held. Connects when needed; true when the lock is ours.
bool ReplicaLiveness::takeLock() {
  try {
    if (!session_ || !session_->conn.is_open()) session_ = std::make_unique<Session>(url_);
    pqxx::nontransaction tx(session_->conn);
    auto row = tx.exec_params1(detail::kTakeLivenessLock.sql, detail::kLivenessLockClass, key_);
    const bool taken = row[0].as<bool>();
    held_since_ = taken ? std::chrono::steady_clock::now().time_since_epoch().count() : 0;
    return taken;
  } catch (const std::exception&) {
    session_.reset();
    held_since_ = 0;
    return false;
  }
}

bool ReplicaLiveness::keep() {
  std::lock_guard guard(mutex_);
  try {
    if (session_ && session_->conn.is_open()) {
      pqxx::nontransaction tx(session_->conn);
      auto row = tx.exec_params1(detail::kHoldsLivenessLock.sql, detail::kLivenessLockClass, key_);
      if (row[0].as<bool>()) return true;
    }
  } catch (const std::exception&) {
    session_.reset();
  }
  return takeLock();
}

}  // namespace inventory
