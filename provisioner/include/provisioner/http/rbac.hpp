// Roles, permissions and the role -> permission matrix of docs/api.md ("Authentication and roles").
#pragma once

#include <string_view>

#include "common/result.hpp"

namespace provisioner::http {

enum class Role { kViewer, kProcurement, kAsset, kOperator, kAdmin };

// What a route needs. kPublic routes need no token at all (health, metrics, openapi.yaml).
enum class Permission {
  kPublic,
  kReadInventory,
  kWritePurchaseOrders,
  kWriteSites,
  kWriteNodes,
  kWriteImages,   // register images, upload artifacts, promote and roll back channels, profiles
  kOperateNodes,  // start and cancel burn-in (and later wipe) tasks
  kDiscover,      // report BMCs seen (DHCP leases, rack manifests) and start subnet sweeps
  kReadAudit,
  kManageTokens,
};

inline constexpr Role kAllRoles[] = {Role::kViewer, Role::kProcurement, Role::kAsset,
                                     Role::kOperator, Role::kAdmin};

// "viewer", "procurement", "asset", "operator", "admin"; anything else is "invalid_role".
common::Result<Role> parseRole(std::string_view text);
std::string_view toString(Role role);
std::string_view toString(Permission permission);

// Deny by default: only the grants in the documented matrix are allowed.
bool allows(Role role, Permission permission);

}  // namespace provisioner::http
