// Running SQL: named statements, transactions, and the translation of libpqxx exceptions into
// common::Error at the library boundary. Only inventory/src includes this.
#pragma once

#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <type_traits>
#include <utility>

#include "common/result.hpp"
#include "inventory/types.hpp"
#include "pool.hpp"

namespace inventory::detail {

// A SQL statement and the name it is prepared under (and reported as in errors).
struct Query {
  const char* name;
  const char* sql;
};

// What a unit of work had reached when it failed: decides whether it is safe to retry.
struct Progress {
  const char* statement = "";
  bool committing = false;
};

// Executes named statements, preparing each once per connection on first use.
class Tx {
 public:
  Tx(pqxx::transaction_base& tx, PooledConnection& connection, Progress& progress)
      : tx_(tx), connection_(connection), progress_(progress) {}

  template <class... Args>
  pqxx::result exec(const Query& query, Args&&... args) {
    progress_.statement = query.name;
    if (connection_.prepared.insert(query.name).second) {
      connection_.conn->prepare(query.name, query.sql);
      ++connection_.round_trips;
    }
    ++connection_.round_trips;
    return tx_.exec_prepared(query.name, std::forward<Args>(args)...);
  }

 private:
  pqxx::transaction_base& tx_;
  PooledConnection& connection_;
  Progress& progress_;
};

struct TranslatedError {
  common::Error error;
  bool connection_broken = false;
};

// Call only inside a catch block: maps the exception in flight to an Error. Messages name the
// operation and statement, never the SQL values (they may hold secrets).
TranslatedError translateCurrentException(const char* operation, const Progress& progress);

// Runs `body(connection, progress)` on a pooled connection. A connection found broken before
// anything was committed is discarded and the body runs once more on a fresh one, so `body`
// must only act on the database.
template <class R, class Body>
R runPooled(Database& db, const char* operation, Body&& body) {
  PgDatabase* pool = asPg(db);
  if (pool == nullptr) return common::fail(common::internalError("not a PostgreSQL database"));
  for (int attempt = 0;; ++attempt) {
    auto lease = pool->acquire();
    if (!lease) return common::fail(std::move(lease).error());
    Progress progress;
    try {
      return body(**lease, progress);
    } catch (...) {
      TranslatedError t = translateCurrentException(operation, progress);
      pool->countError();
      if (t.connection_broken || !(*lease)->conn->is_open()) {
        lease->markBroken();
        pool->discardIdle();
        if (attempt == 0 && !progress.committing) continue;
      }
      return common::fail(std::move(t.error));
    }
  }
}

// One read-write transaction: committed when `f(tx)` succeeds, rolled back when it fails.
template <class F>
auto withTransaction(Database& db, const char* operation, F&& f) {
  using R = std::invoke_result_t<F&, Tx&>;
  return runPooled<R>(db, operation, [&f](PooledConnection& c, Progress& progress) -> R {
    pqxx::work work(*c.conn);
    c.round_trips += 2;  // BEGIN, and COMMIT or ROLLBACK
    Tx tx(work, c, progress);
    R result = f(tx);
    if (result) {
      progress.committing = true;
      work.commit();
    }
    return result;
  });
}

// Reads without BEGIN/COMMIT round trips (each statement is its own snapshot).
template <class F>
auto withRead(Database& db, const char* operation, F&& f) {
  using R = std::invoke_result_t<F&, Tx&>;
  return runPooled<R>(db, operation, [&f](PooledConnection& c, Progress& progress) -> R {
    pqxx::nontransaction work(*c.conn);
    Tx tx(work, c, progress);
    return f(tx);
  });
}

// Field accessors that turn SQL NULL into the empty value of the record types.
inline std::string text(const pqxx::field& f) {
  return f.is_null() ? std::string() : f.c_str();
}
inline Id id(const pqxx::field& f) {
  return f.as<Id>();
}
inline int integer(const pqxx::field& f) {
  return f.is_null() ? 0 : f.as<int>();
}
inline std::optional<int> optInt(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<int>(f.as<int>());
}
inline std::optional<Id> optId(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<Id>(f.as<Id>());
}
// Empty text is stored as NULL in nullable unique columns (bmc_mac).
inline std::optional<std::string> nullIfEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

}  // namespace inventory::detail
