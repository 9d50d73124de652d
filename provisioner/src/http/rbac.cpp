#include "provisioner/http/rbac.hpp"

namespace provisioner::http {
namespace {

struct RoleName {
  Role role;
  std::string_view name;
};
constexpr RoleName kRoleNames[] = {{Role::kViewer, "viewer"},
                                   {Role::kProcurement, "procurement"},
                                   {Role::kAsset, "asset"},
                                   {Role::kOperator, "operator"},
                                   {Role::kAdmin, "admin"}};

// The matrix of docs/api.md, one row per grant. Anything not listed is denied.
struct Grant {
  Permission permission;
  Role role;
};
constexpr Grant kGrants[] = {
    {Permission::kReadInventory, Role::kViewer},
    {Permission::kReadInventory, Role::kProcurement},
    {Permission::kReadInventory, Role::kAsset},
    {Permission::kReadInventory, Role::kOperator},
    {Permission::kReadInventory, Role::kAdmin},
    {Permission::kWritePurchaseOrders, Role::kProcurement},
    {Permission::kWritePurchaseOrders, Role::kAdmin},
    {Permission::kWriteSites, Role::kAsset},
    {Permission::kWriteSites, Role::kOperator},
    {Permission::kWriteSites, Role::kAdmin},
    {Permission::kWriteNodes, Role::kAsset},
    {Permission::kWriteNodes, Role::kOperator},
    {Permission::kWriteNodes, Role::kAdmin},
    {Permission::kWriteImages, Role::kOperator},
    {Permission::kWriteImages, Role::kAdmin},
    {Permission::kOperateNodes, Role::kOperator},
    {Permission::kOperateNodes, Role::kAdmin},
    {Permission::kDiscover, Role::kOperator},
    {Permission::kDiscover, Role::kAdmin},
    {Permission::kReadAudit, Role::kAsset},
    {Permission::kReadAudit, Role::kOperator},
    {Permission::kReadAudit, Role::kAdmin},
    {Permission::kManageTokens, Role::kAdmin},
};

}  // namespace

common::Result<Role> parseRole(std::string_view text) {
  for (const auto& entry : kRoleNames) {
    if (entry.name == text) return entry.role;
  }
  return common::invalidArgument(
      "invalid_role", "role must be one of viewer, procurement, asset, operator, admin", "role");
}

std::string_view toString(Role role) {
  for (const auto& entry : kRoleNames) {
    if (entry.role == role) return entry.name;
  }
  return "unknown";
}

std::string_view toString(Permission permission) {
  switch (permission) {
    case Permission::kPublic:
      return "public";
    case Permission::kReadInventory:
      return "read_inventory";
    case Permission::kWritePurchaseOrders:
      return "write_purchase_orders";
    case Permission::kWriteSites:
      return "write_sites";
    case Permission::kWriteNodes:
      return "write_nodes";
    case Permission::kWriteImages:
      return "write_images";
    case Permission::kOperateNodes:
      return "operate_nodes";
    case Permission::kDiscover:
      return "discover";
    case Permission::kReadAudit:
      return "read_audit";
    case Permission::kManageTokens:
      return "manage_tokens";
  }
  return "unknown";
}

bool allows(Role role, Permission permission) {
  if (permission == Permission::kPublic) return true;
  for (const auto& grant : kGrants) {
    if (grant.permission == permission && grant.role == role) return true;
  }
  return false;
}

}  // namespace provisioner::http
