// SQL of node labels.
#pragma once

#include "db.hpp"

namespace inventory::detail {

constexpr Query kLockNodeLabels{"lock_node_labels",
                                "SELECT labels::text FROM nodes WHERE id = $1 FOR UPDATE"};
constexpr Query kSelectNodeLabels{"select_node_labels",
                                  "SELECT labels::text FROM nodes WHERE id = $1"};
constexpr Query kUpdateNodeLabels{
    "update_node_labels", "UPDATE nodes SET labels = $2::jsonb, updated_at = now() WHERE id = $1"};

}  // namespace inventory::detail
