#include <catch2/catch.hpp>

#include <set>

#include "common/data_paths.hpp"

namespace {

const common::DataLocation kMigrations{"../share/provisioner/migrations", "/src/tree/migrations",
                                       "/src/tree/build/release"};

auto existing(std::set<std::string> paths) {
  return [paths = std::move(paths)](const std::string& p) { return paths.count(p) > 0; };
}

}  // namespace

TEST_CASE("installed programs find their data beside the executable", "[data_paths]") {
  CHECK(common::resolveDataPath(kMigrations, "/usr/bin/provisioner",
                                existing({"/usr/share/provisioner/migrations"})) ==
        "/usr/share/provisioner/migrations");
  // A DESTDIR or /opt prefix works the same: the path is relative to the binary.
  CHECK(common::resolveDataPath(kMigrations, "/tmp/root/opt/p/bin/provisioner",
                                existing({"/tmp/root/opt/p/share/provisioner/migrations"})) ==
        "/tmp/root/opt/p/share/provisioner/migrations");
}

TEST_CASE("the source tree is a fallback only for programs in the build dir", "[data_paths]") {
  CHECK(common::resolveDataPath(kMigrations, "/src/tree/build/release/provisioner/provisioner",
                                existing({})) == "/src/tree/migrations");
  // Installed data wins even from the build dir.
  CHECK(
      common::resolveDataPath(kMigrations, "/src/tree/build/release/bin/provisioner",
                              existing({"/src/tree/build/release/share/provisioner/migrations"})) ==
      "/src/tree/build/release/share/provisioner/migrations");
  // A copy elsewhere (or a sibling folder whose name merely starts the same) never reaches into
  // the source tree: it names the installed path it looked for.
  CHECK(common::resolveDataPath(kMigrations, "/usr/local/bin/provisioner", existing({})) ==
        "/usr/local/share/provisioner/migrations");
  CHECK(common::resolveDataPath(kMigrations, "/src/tree/build/release2/bin/provisioner",
                                existing({})) ==
        "/src/tree/build/release2/share/provisioner/migrations");
  common::DataLocation no_fallback = kMigrations;
  no_fallback.build_dir.clear();
  CHECK(common::resolveDataPath(no_fallback, "/src/tree/build/release/bin/provisioner",
                                existing({})) ==
        "/src/tree/build/release/share/provisioner/migrations");
}
