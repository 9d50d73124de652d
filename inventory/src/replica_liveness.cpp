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

ReplicaLiveness::~ReplicaLiveness() = default;

common::Result<std::unique_ptr<ReplicaLiveness>> ReplicaLiveness::hold(const std::string& url) {
  // Another process holding the same random key is a rare draw: try a few.
  for (int tries = 0; tries < 8; ++tries) {
    std::unique_ptr<ReplicaLiveness> liveness(new ReplicaLiveness(url, randomKey()));
    std::lock_guard guard(liveness->mutex_);
    if (liveness->takeLock()) return liveness;
    if (!liveness->session_) break;  // no connection at all: the database is unreachable
  }
  return common::unavailable("database_unavailable",
                             "cannot take the replica's liveness lock in the database");
}

// With mutex_ held. Connects when needed; true when the lock is ours.
bool ReplicaLiveness::takeLock() {
  try {
    if (!session_ || !session_->conn.is_open()) session_ = std::make_unique<Session>(url_);
    pqxx::nontransaction tx(session_->conn);
    auto row = tx.exec_params1(detail::kTakeLivenessLock.sql, detail::kLivenessLockClass, key_);
    return row[0].as<bool>();
  } catch (const std::exception&) {
    session_.reset();
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
