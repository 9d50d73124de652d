#include "pool.hpp"

#include "db.hpp"
#include "queries_access.hpp"

namespace inventory {
namespace detail {
namespace {

common::Error databaseUnavailable(std::string message) {
  return common::unavailable("database_unavailable", std::move(message));
}

// Opening can fail for many reasons (refused, auth, unknown database); none is the caller's bad
// input, and the message may name the host, so it stays generic.
common::Result<std::unique_ptr<PooledConnection>> openConnection(const std::string& url) {
  try {
    auto pooled = std::make_unique<PooledConnection>();
    pooled->conn = std::make_unique<pqxx::connection>(url);
    // Every statement here is a keyed lookup or write whose best plan does not depend on the
    // parameter values; re-planning each execution (PostgreSQL's default for the first runs and
    // whenever a generic plan looks costlier) was the largest cost of the asset lookup.
    pqxx::nontransaction(*pooled->conn).exec("SET plan_cache_mode = force_generic_plan");
    return pooled;
  } catch (const std::exception&) {
    return databaseUnavailable("cannot open a connection to the database");
  }
}

}  // namespace

ConnectionLease::~ConnectionLease() {
  if (connection_) pool_->release(std::move(connection_), broken_);
}

PgDatabase::PgDatabase(std::string url, std::size_t pool_size,
                       std::chrono::milliseconds acquire_timeout)
    : url_(std::move(url)),
      max_size_(pool_size == 0 ? 1 : pool_size),
      acquire_timeout_(acquire_timeout) {}

namespace {

// Reads whatever the server sent while the connection sat idle, without a round trip (libpq's
// socket is non-blocking). A terminated backend leaves its FATAL message and then end-of-file:
// the first read consumes the message, the second meets the end and marks the connection bad.
bool stillOpen(PooledConnection& c) {
  try {
    c.conn->get_notifs();
    c.conn->get_notifs();
    return c.conn->is_open();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

common::Result<ConnectionLease> PgDatabase::acquire() {
  auto deadline = std::chrono::steady_clock::now() + acquire_timeout_;
  for (;;) {
    std::unique_lock lock(mutex_);
    ++waiting_;
    bool ready = available_.wait_until(lock, deadline,
                                       [this] { return !idle_.empty() || open_ < max_size_; });
    --waiting_;
    if (!ready) return databaseUnavailable("no database connection became free in time");
    ++in_use_;
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      lock.unlock();
      if (stillOpen(*connection)) {
        lock.lock();
        ++acquired_total_;
        return ConnectionLease(this, std::move(connection));
      }
      lock.lock();
      --in_use_;
      --open_;
      continue;  // `connection` closes as the loop goes round
    }
    ++open_;  // reserve the slot, then connect without holding the lock
    lock.unlock();
    auto opened = openConnection(url_);
    lock.lock();
    if (!opened) {
      --open_;
      --in_use_;
      lock.unlock();
      available_.notify_one();
      return common::fail(std::move(opened).error());
    }
    ++acquired_total_;
    return ConnectionLease(this, std::move(opened).value());
  }
}

void PgDatabase::release(std::unique_ptr<PooledConnection> connection, bool broken) {
  std::unique_ptr<PooledConnection> closing;
  {
    std::lock_guard lock(mutex_);
    --in_use_;
    round_trips_total_ += connection->round_trips;
    connection->round_trips = 0;
    if (broken || !connection->conn->is_open()) {
      --open_;
      closing = std::move(connection);
    } else {
      idle_.push_back(std::move(connection));
    }
  }
  available_.notify_one();
}

void PgDatabase::discardIdle() {
  std::vector<std::unique_ptr<PooledConnection>> closing;
  {
    std::lock_guard lock(mutex_);
    open_ -= idle_.size();
    closing.swap(idle_);
  }
  available_.notify_all();
}

common::Result<void> PgDatabase::ping() {
  return withRead(*this, "ping", [](Tx& tx) -> common::Result<void> {
    tx.exec(kPing);
    return common::success();
  });
}

PoolStats PgDatabase::stats() const {
  std::lock_guard lock(mutex_);
  PoolStats s;
  s.size = open_;
  s.in_use = in_use_;
  s.waiting = waiting_;
  s.acquired_total = acquired_total_;
  s.round_trips_total = round_trips_total_;
  s.errors_total = errors_total_.load(std::memory_order_relaxed);
  return s;
}

PgDatabase* asPg(Database& db) {
  return dynamic_cast<PgDatabase*>(&db);
}

}  // namespace detail

common::Result<std::shared_ptr<Database>> Database::connect(
    const std::string& url, std::size_t pool_size, std::chrono::milliseconds acquire_timeout) {
  auto db = std::make_shared<detail::PgDatabase>(url, pool_size, acquire_timeout);
  {
    auto first = db->acquire();  // proves the URL works; the connection stays in the pool
    if (!first) return common::fail(std::move(first).error());
  }
  return std::shared_ptr<Database>(std::move(db));
}

}  // namespace inventory
