// Maps libpqxx exceptions to common::Error. Constraint names (migrations/) pick the precise code.
#include <array>
#include <string_view>

#include "db.hpp"

namespace inventory::detail {
namespace {

using common::ErrorKind;

struct ConstraintRule {
  std::string_view constraint;
  ErrorKind kind;
  std::string_view code;
  std::string_view field;
  std::string_view message;
};

constexpr std::array kConstraintRules{
    ConstraintRule{"nodes_chassis_serial_key", ErrorKind::kConflict, "duplicate_serial",
                   "chassis_serial", "a node with this chassis serial already exists"},
    ConstraintRule{"nodes_bmc_mac_key", ErrorKind::kConflict, "duplicate_bmc_mac", "bmc_mac",
                   "a node with this BMC MAC already exists"},
    ConstraintRule{"expected_assets_chassis_serial_key", ErrorKind::kConflict, "duplicate_serial",
                   "chassis_serial", "this chassis serial is already on a purchase order"},
    ConstraintRule{"expected_assets_bmc_mac_key", ErrorKind::kConflict, "duplicate_bmc_mac",
                   "bmc_mac", "this BMC MAC is already on a purchase order"},
    ConstraintRule{"purchase_orders_po_number_key", ErrorKind::kConflict, "duplicate_po",
                   "po_number", "a purchase order with this number already exists"},
    ConstraintRule{"purchase_orders_status_check", ErrorKind::kInvalidArgument, "invalid_status",
                   "status", "status must be open, closed or cancelled"},
    ConstraintRule{"po_line_items_po_id_line_no_key", ErrorKind::kConflict, "duplicate_line_item",
                   "line_no", "the purchase order already has this line"},
    ConstraintRule{"racks_site_id_name_key", ErrorKind::kConflict, "duplicate_rack", "name",
                   "the site already has a rack with this name"},
    ConstraintRule{"racks_u_height_check", ErrorKind::kInvalidArgument, "invalid_u_height",
                   "u_height", "u_height must be between 1 and 100"},
    ConstraintRule{"sites_name_key", ErrorKind::kConflict, "duplicate_site", "name",
                   "a site with this name already exists"},
    ConstraintRule{"nodes_state_check", ErrorKind::kInvalidArgument, "invalid_state", "state",
                   "unknown node state"},
    ConstraintRule{"components_kind_check", ErrorKind::kInvalidArgument, "invalid_kind", "kind",
                   "unknown component kind"},
    ConstraintRule{"component_placements_open_key", ErrorKind::kConflict, "concurrent_update", "",
                   "the component was installed elsewhere concurrently; retry"},
    ConstraintRule{"components_serial_key", ErrorKind::kConflict, "concurrent_update", "",
                   "the component was recorded concurrently; retry"},
    ConstraintRule{"api_tokens_role_check", ErrorKind::kInvalidArgument, "invalid_role", "role",
                   "role must be viewer, procurement, asset, operator or admin"},
    ConstraintRule{"api_tokens_token_hash_key", ErrorKind::kConflict, "duplicate_token", "",
                   "a token with this hash already exists"},
    // Images, channels, profiles (0003).
    ConstraintRule{"images_name_version_key", ErrorKind::kConflict, "image_version_exists",
                   "version", "this image version is already registered"},
    ConstraintRule{"images_name_check", ErrorKind::kInvalidArgument, "invalid_image_name", "name",
                   "image name must match [a-z0-9][a-z0-9._-]{0,63}"},
    ConstraintRule{"images_version_check", ErrorKind::kInvalidArgument, "invalid_image_version",
                   "version", "image version must match [A-Za-z0-9][A-Za-z0-9._+-]{0,63}"},
    ConstraintRule{"image_artifacts_image_id_kind_key", ErrorKind::kInvalidArgument,
                   "duplicate_artifact_kind", "artifacts", "an image has one artifact per kind"},
    ConstraintRule{"image_artifacts_kind_check", ErrorKind::kInvalidArgument,
                   "invalid_artifact_kind", "artifacts",
                   "artifact kind must be kernel, initrd or rootfs"},
    ConstraintRule{"image_artifacts_sha256_check", ErrorKind::kInvalidArgument, "invalid_sha256",
                   "artifacts", "sha256 must be 64 lower-case hex digits"},
    ConstraintRule{"image_artifacts_size_check", ErrorKind::kInvalidArgument, "invalid_size",
                   "artifacts", "artifact size must be positive"},
    ConstraintRule{"channels_name_check", ErrorKind::kInvalidArgument, "invalid_channel_name",
                   "channel", "channel must match [a-z0-9][a-z0-9._-]{0,63}"},
    ConstraintRule{"channels_name_key", ErrorKind::kConflict, "concurrent_update", "",
                   "the channel was created concurrently; retry"},
    // Firmware (0005).
    ConstraintRule{"firmware_packages_name_version_key", ErrorKind::kConflict, "package_exists",
                   "version", "this package version is already registered"},
    ConstraintRule{"baselines_name_key", ErrorKind::kConflict, "baseline_changed", "name",
                   "the baseline was created concurrently; apply again"},
    ConstraintRule{"baseline_revisions_revision_key", ErrorKind::kConflict, "baseline_changed",
                   "name", "another revision of the baseline was applied concurrently; apply again"},
    ConstraintRule{"hardware_profiles_baseline_check", ErrorKind::kInvalidArgument,
                   "invalid_baseline_name", "baseline",
                   "baseline must match [a-z0-9][a-z0-9._-]{0,63}"},
    ConstraintRule{"hardware_profiles_model_key", ErrorKind::kConflict, "duplicate_profile_model",
                   "model", "another hardware profile already has this model"},
    ConstraintRule{"hardware_profiles_name_check", ErrorKind::kInvalidArgument,
                   "invalid_profile_name", "name",
                   "profile name must match [a-z0-9][a-z0-9._-]{0,63}"},
    ConstraintRule{"hardware_profiles_channel_check", ErrorKind::kInvalidArgument,
                   "invalid_channel_name", "channel",
                   "channel must match [a-z0-9][a-z0-9._-]{0,63}"},
    ConstraintRule{"hardware_profiles_expected_gpus_check", ErrorKind::kInvalidArgument,
                   "invalid_expected_gpus", "expected_gpus", "expected_gpus must not be negative"},
    // Boot MACs, agent tasks and tokens (0003).
    ConstraintRule{"boot_macs_mac_key", ErrorKind::kConflict, "boot_mac_in_use", "macs",
                   "this MAC already boots another node"},
    ConstraintRule{"boot_macs_mac_check", ErrorKind::kInvalidArgument, "invalid_mac", "macs",
                   "a MAC must be aa:bb:cc:dd:ee:ff"},
    ConstraintRule{"boot_macs_source_check", ErrorKind::kInvalidArgument, "invalid_source",
                   "source", "source must be operator, redfish or agent"},
    ConstraintRule{"agent_tasks_open_key", ErrorKind::kConflict, "task_already_open", "node_id",
                   "the node already has a pending or running task"},
    ConstraintRule{"agent_tasks_kind_check", ErrorKind::kInvalidArgument, "invalid_kind", "kind",
                   "task kind must be burn_in or wipe"},
    ConstraintRule{"agent_tasks_state_check", ErrorKind::kInvalidArgument, "invalid_state", "state",
                   "unknown task state"},
    ConstraintRule{"agent_tasks_expected_gpus_check", ErrorKind::kInvalidArgument,
                   "invalid_expected_gpus", "expected_gpus", "expected_gpus must not be negative"},
    ConstraintRule{"agent_tokens_token_hash_key", ErrorKind::kConflict, "duplicate_token", "",
                   "an agent token with this hash already exists"},
    ConstraintRule{"agent_tokens_token_hash_check", ErrorKind::kInvalidArgument,
                   "invalid_token_hash", "token_hash", "token_hash must be SHA-256 hex"},
    ConstraintRule{"agent_tokens_kind_check", ErrorKind::kInvalidArgument, "invalid_token_kind",
                   "kind", "token kind must be boot or session"},
    // Campaigns (0006).
    ConstraintRule{"campaigns_name_key", ErrorKind::kConflict, "duplicate_campaign", "name",
                   "a campaign with this name already exists"},
    ConstraintRule{"campaigns_name_check", ErrorKind::kInvalidArgument, "invalid_name", "name",
                   "campaign name must match [a-z0-9][a-z0-9._-]{0,63}"},
    ConstraintRule{"campaign_nodes_pkey", ErrorKind::kInvalidArgument, "duplicate_node", "selector",
                   "a campaign holds each node once"},
    ConstraintRule{"campaign_nodes_position_key", ErrorKind::kInvalidArgument, "duplicate_position",
                   "position", "plan positions must be unique"},
    ConstraintRule{"campaign_nodes_node_id_fkey", ErrorKind::kInvalidArgument, "unknown_node",
                   "selector", "a planned node does not exist"},
    ConstraintRule{"campaign_nodes_run_id_fkey", ErrorKind::kInvalidArgument, "unknown_run",
                   "run_id", "no workflow run with this id"},
    ConstraintRule{"campaign_events_campaign_id_fkey", ErrorKind::kNotFound, "campaign_not_found",
                   "", "no such campaign"},
    ConstraintRule{"campaign_events_node_id_fkey", ErrorKind::kInvalidArgument, "unknown_node",
                   "node_id", "no node with this id"},
};

// The server's message names the violated constraint: `... constraint "name"` in English. Other
// message languages quote differently, so fall back to finding a known name in the first line
// (the DETAIL lines hold user values and are not searched).
const ConstraintRule* findRule(std::string_view message) {
  constexpr std::string_view kMarker = "constraint \"";
  if (auto at = message.find(kMarker); at != std::string_view::npos) {
    auto start = at + kMarker.size();
    auto name = message.substr(start, message.find('"', start) - start);
    for (const auto& rule : kConstraintRules) {
      if (rule.constraint == name) return &rule;
    }
    return nullptr;
  }
  auto first_line = message.substr(0, message.find('\n'));
  for (const auto& rule : kConstraintRules) {
    if (first_line.find(rule.constraint) != std::string_view::npos) return &rule;
  }
  return nullptr;
}

common::Error fromRule(const ConstraintRule& rule, const char* operation) {
  return common::Error{rule.kind, std::string(rule.code), std::string(rule.message),
                       std::string(rule.field), std::string(operation)};
}

std::string where(const char* operation, const Progress& progress) {
  return std::string(operation) + " (statement " + progress.statement + ")";
}

common::Error unavailableError(const char* operation, const Progress& progress) {
  return std::move(common::unavailable("database_unavailable", "the database cannot be reached"))
      .withDetail(where(operation, progress));
}

}  // namespace

TranslatedError translateCurrentException(const char* operation, const Progress& progress) {
  try {
    throw;
  } catch (const pqxx::in_doubt_error&) {
    return {std::move(common::unavailable("database_unavailable",
                                          "the connection was lost while committing; the change "
                                          "may or may not have been applied"))
                .withDetail(where(operation, progress)),
            true};
  } catch (const pqxx::broken_connection&) {
    return {unavailableError(operation, progress), true};
  } catch (const pqxx::integrity_constraint_violation& e) {
    if (const ConstraintRule* rule = findRule(e.what())) return {fromRule(*rule, operation), false};
    bool unique = dynamic_cast<const pqxx::unique_violation*>(&e) != nullptr;
    common::Error err =
        unique ? common::conflict("duplicate", "a record with these values already exists")
               : common::invalidArgument("constraint_violation",
                                         "the values break a rule of the inventory");
    return {std::move(err).withDetail(where(operation, progress)), false};
  } catch (const pqxx::transaction_rollback&) {
    return {std::move(
                common::conflict("concurrent_update", "a concurrent change got in the way; retry"))
                .withDetail(where(operation, progress)),
            false};
  } catch (const pqxx::sql_error& e) {
    std::string_view state = e.sqlstate();
    // Class 08 (connection exception) and 57P (operator intervention: terminated, shutdown).
    if (state.substr(0, 2) == "08" || state.substr(0, 3) == "57P") {
      return {unavailableError(operation, progress), true};
    }
    if (state.substr(0, 2) == "22") {  // data exception: a value the column cannot hold
      return {std::move(common::invalidArgument("invalid_value",
                                                "a value is not valid for the inventory"))
                  .withDetail(where(operation, progress)),
              false};
    }
    return {std::move(common::internalError("database error"))
                .withDetail(where(operation, progress) + " SQLSTATE " + std::string(state)),
            false};
  } catch (const std::exception&) {
    return {
        std::move(common::internalError("inventory error")).withDetail(where(operation, progress)),
        false};
  } catch (...) {
    return {common::internalError("unknown inventory error"), false};
  }
}

}  // namespace inventory::detail
