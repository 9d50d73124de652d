#include <catch2/catch.hpp>

#include "provisioner/http/rbac.hpp"

using provisioner::http::allows;
using provisioner::http::kAllRoles;
using provisioner::http::parseRole;
using provisioner::http::Permission;
using provisioner::http::Role;

namespace {

// docs/api.md "Authentication and roles", transcribed row by row:
//                          viewer procurement asset operator admin
struct Row {
  Permission permission;
  bool grants[5];
};
constexpr Row kDocumentedMatrix[] = {
    {Permission::kReadInventory, {true, true, true, true, true}},
    {Permission::kWritePurchaseOrders, {false, true, false, false, true}},
    {Permission::kWriteSites, {false, false, true, true, true}},
    {Permission::kWriteNodes, {false, false, true, true, true}},
    {Permission::kWriteImages, {false, false, false, true, true}},
    {Permission::kOperateNodes, {false, false, false, true, true}},
    {Permission::kDiscover, {false, false, false, true, true}},
    {Permission::kReadAudit, {false, false, true, true, true}},
    {Permission::kManageTokens, {false, false, false, false, true}},
};

}  // namespace

TEST_CASE("allows() implements the documented role matrix exactly", "[unit][http]") {
  for (const auto& row : kDocumentedMatrix) {
    for (std::size_t r = 0; r < std::size(kAllRoles); ++r) {
      INFO(toString(kAllRoles[r]) << " / " << toString(row.permission));
      CHECK(allows(kAllRoles[r], row.permission) == row.grants[r]);
    }
  }
}

TEST_CASE("public routes are open to every role", "[unit][http]") {
  for (auto role : kAllRoles) CHECK(allows(role, Permission::kPublic));
}

TEST_CASE("unknown enum values are denied", "[unit][http]") {
  CHECK_FALSE(allows(static_cast<Role>(42), Permission::kReadInventory));
  CHECK_FALSE(allows(Role::kAdmin, static_cast<Permission>(42)));
}

TEST_CASE("parseRole round-trips every role and rejects others", "[unit][http]") {
  for (auto role : kAllRoles) {
    auto parsed = parseRole(toString(role));
    REQUIRE(parsed.ok());
    CHECK(*parsed == role);
  }
  for (const char* bad : {"", "Admin", "root", "viewer ", "operators"}) {
    INFO(bad);
    auto parsed = parseRole(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == "invalid_role");
    CHECK(parsed.error().field == "role");
    CHECK(parsed.error().kind == common::ErrorKind::kInvalidArgument);
  }
}
