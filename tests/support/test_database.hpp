// Fresh, empty PostgreSQL databases for integration tests, from PROVISIONER_TEST_DATABASE_URL.
#pragma once

#include <string>

namespace testing {

// The admin URL the test script exported; fails the test (never skips) when it is unset.
std::string adminDatabaseUrl();

// Creates a new empty database with a unique name and returns its URL. Dropped at process exit.
std::string freshDatabaseUrl();

// The migrations folder of the source tree.
std::string migrationsDir();

}  // namespace testing
