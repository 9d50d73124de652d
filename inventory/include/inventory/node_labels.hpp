// Node labels (string -> string: partition, nvlink_domain, pdu, leaf_switch, any): the rules a
// label obeys, and reading, replacing and merging a node's labels (each change on its timeline).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

using Labels = std::map<std::string, std::string>;
// A merge: a value sets the label, nullopt removes it.
using LabelChanges = std::map<std::string, std::optional<std::string>>;

inline constexpr std::size_t kMaxLabelsPerNode = 64;
inline constexpr std::size_t kMaxLabelValueLength = 128;

// Keys match ^[a-z][a-z0-9_.-]{0,62}$.
bool isLabelKey(std::string_view key);
// InvalidArgument "invalid_label" naming the field "labels.<key>" (or "labels" for the key
// itself when it is not a valid key): key rule, values 1..128 characters.
common::Result<void> checkLabel(std::string_view key, std::string_view value);
common::Result<void> checkLabelChanges(const LabelChanges& changes);

// Applies changes to labels (pure); InvalidArgument "too_many_labels" beyond kMaxLabelsPerNode.
common::Result<Labels> mergeLabels(const Labels& current, const LabelChanges& changes);

common::Result<Labels> getNodeLabels(Database& db, Id node_id);
// Merges under the node's row lock; a "labels_changed" timeline event with the before and after
// when something changed. Unknown node: NotFound "node_not_found".
common::Result<Node> mergeNodeLabels(Database& db, Id node_id, const LabelChanges& changes,
                                     const std::string& actor);
// Replaces every label of the node.
common::Result<Node> setNodeLabels(Database& db, Id node_id, const Labels& labels,
                                   const std::string& actor);

}  // namespace inventory
