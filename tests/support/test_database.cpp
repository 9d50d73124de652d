#include "support/test_database.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <pqxx/pqxx>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace testing {
namespace {

std::string replaceDatabaseName(const std::string& url, const std::string& name) {
  auto slash = url.rfind('/');
  auto query = url.find('?', slash == std::string::npos ? 0 : slash);
  std::string tail = query == std::string::npos ? "" : url.substr(query);
  return url.substr(0, slash + 1) + name + tail;
}

struct CreatedDatabases {
  std::mutex mutex;
  std::vector<std::string> names;
  ~CreatedDatabases() {
    try {
      pqxx::connection c(adminDatabaseUrl());
      for (const auto& n : names) {
        pqxx::nontransaction tx(c);
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(n) + " WITH (FORCE)");
      }
    } catch (...) {
      // The throwaway cluster is deleted by scripts/test anyway.
    }
  }
};

CreatedDatabases& created() {
  static CreatedDatabases dbs;
  return dbs;
}

}  // namespace

std::string adminDatabaseUrl() {
  const char* url = std::getenv("PROVISIONER_TEST_DATABASE_URL");
  if (url == nullptr || *url == '\0') {
    throw std::runtime_error(
        "PROVISIONER_TEST_DATABASE_URL is not set: run integration tests through ./scripts/test");
  }
  return url;
}

std::string freshDatabaseUrl() {
  static std::atomic<int> counter{0};
  std::string name = "t_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  {
    pqxx::connection c(adminDatabaseUrl());
    pqxx::nontransaction tx(c);
    tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name) + " WITH (FORCE)");
    tx.exec("CREATE DATABASE " + tx.quote_name(name));
  }
  std::lock_guard lock(created().mutex);
  created().names.push_back(name);
  return replaceDatabaseName(adminDatabaseUrl(), name);
}

std::string migrationsDir() {
  return PROVISIONER_TEST_MIGRATIONS_DIR;
}

}  // namespace testing
