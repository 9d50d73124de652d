// The PostgreSQL implementation of Database: a bounded, lazily filled pool of pqxx connections.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <pqxx/pqxx>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "inventory/database.hpp"

namespace inventory::detail {

// One open connection and the names of the statements already prepared on it.
struct PooledConnection {
  std::unique_ptr<pqxx::connection> conn;
  std::unordered_set<std::string_view> prepared;
  std::uint64_t round_trips = 0;  // since the last return to the pool, which adds them up
};

class PgDatabase;

// A connection on loan; goes back to the pool on destruction, or is closed when marked broken.
class ConnectionLease {
 public:
  ConnectionLease(PgDatabase* pool, std::unique_ptr<PooledConnection> connection)
      : pool_(pool), connection_(std::move(connection)) {}
  ConnectionLease(ConnectionLease&& other) noexcept
      : pool_(other.pool_), connection_(std::move(other.connection_)), broken_(other.broken_) {}
  ConnectionLease(const ConnectionLease&) = delete;
  ConnectionLease& operator=(const ConnectionLease&) = delete;
  ConnectionLease& operator=(ConnectionLease&&) = delete;
  ~ConnectionLease();

  PooledConnection& operator*() { return *connection_; }
  PooledConnection* operator->() { return connection_.get(); }
  void markBroken() { broken_ = true; }

 private:
  PgDatabase* pool_;
  std::unique_ptr<PooledConnection> connection_;
  bool broken_ = false;
};

class PgDatabase final : public Database {
 public:
  PgDatabase(std::string url, std::size_t pool_size, std::chrono::milliseconds acquire_timeout);

  common::Result<ConnectionLease> acquire();
  // Closes the idle connections: after one broke, the server has likely restarted.
  void discardIdle();
  void countError() { errors_total_.fetch_add(1, std::memory_order_relaxed); }

  common::Result<void> ping() override;
  PoolStats stats() const override;
  const std::string& url() const override { return url_; }

 private:
  friend class ConnectionLease;
  void release(std::unique_ptr<PooledConnection> connection, bool broken);

  const std::string url_;
  const std::size_t max_size_;
  const std::chrono::milliseconds acquire_timeout_;

  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<PooledConnection>> idle_;
  std::size_t open_ = 0;  // idle + lent + being opened
  std::size_t in_use_ = 0;
  std::size_t waiting_ = 0;
  std::uint64_t acquired_total_ = 0;
  std::uint64_t round_trips_total_ = 0;
  std::atomic<std::uint64_t> errors_total_{0};
};

// The pool behind `db`, or null when `db` is some other implementation (a test double).
PgDatabase* asPg(Database& db);

}  // namespace inventory::detail
