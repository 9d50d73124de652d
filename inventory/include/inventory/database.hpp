// The PostgreSQL connection pool every inventory call goes through. libpqxx stays behind it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/result.hpp"

namespace inventory {

struct PoolStats {
  std::size_t size = 0;     // connections open
  std::size_t in_use = 0;   // connections lent out now
  std::size_t waiting = 0;  // callers waiting for a connection now
  std::uint64_t acquired_total = 0;
  std::uint64_t errors_total = 0;  // statements that failed with a database error
  // Requests sent to the server and waited for: statements, PREPAREs, BEGIN and COMMIT.
  std::uint64_t round_trips_total = 0;
};

class Database {
 public:
  // Opens up to `pool_size` connections lazily; fails when the first one cannot be opened.
  // A caller that finds every connection lent out waits up to `acquire_timeout`, then gets
  // Unavailable "database_unavailable".
  static common::Result<std::shared_ptr<Database>> connect(
      const std::string& url, std::size_t pool_size,
      std::chrono::milliseconds acquire_timeout = std::chrono::seconds(5));
  virtual ~Database() = default;

  virtual common::Result<void> ping() = 0;
  virtual PoolStats stats() const = 0;
  virtual const std::string& url() const = 0;
};

using DatabasePtr = std::shared_ptr<Database>;

}  // namespace inventory
