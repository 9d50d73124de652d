#include "inventory/node_labels.hpp"

#include <nlohmann/json.hpp>

#include "db.hpp"
#include "node_rows.hpp"
#include "queries_node_labels.hpp"
#include "queries_nodes.hpp"

namespace inventory {
namespace {

using detail::Tx;

bool lowerAlpha(char c) {
  return c >= 'a' && c <= 'z';
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

nlohmann::json labelsJson(const Labels& labels) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [key, value] : labels) object[key] = value;
  return object;
}

common::Result<Node> readNode(Tx& tx, Id node_id) {
  auto rows = tx.exec(detail::kSelectNodeById, node_id);
  if (rows.empty()) return detail::nodeNotFound(node_id);
  return detail::nodeFromRow(rows[0]);
}

// Locks the node, writes `next(current)` when it differs, and records the change.
template <class Next>
common::Result<Node> changeLabels(Database& db, Id node_id, const std::string& actor,
                                  const char* operation, Next&& next) {
  return detail::withTransaction(db, operation, [&](Tx& tx) -> common::Result<Node> {
    auto locked = tx.exec(detail::kLockNodeLabels, node_id);
    if (locked.empty()) return detail::nodeNotFound(node_id);
    const Labels before = detail::labelsFromText(detail::text(locked[0][0]));
    PROV_ASSIGN(Labels after, next(before));
    if (after != before) {
      tx.exec(detail::kUpdateNodeLabels, node_id, detail::labelsToText(after));
      nlohmann::json event = {{"before", labelsJson(before)}, {"after", labelsJson(after)}};
      detail::insertEvent(tx, node_id, actor, "labels_changed", "labels changed", event.dump());
    }
    return readNode(tx, node_id);
  });
}

}  // namespace

bool isLabelKey(std::string_view key) {
  if (key.empty() || key.size() > 63 || !lowerAlpha(key.front())) return false;
  for (char c : key) {
    if (!lowerAlpha(c) && !digit(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

common::Result<void> checkLabel(std::string_view key, std::string_view value) {
  if (!isLabelKey(key)) {
    return common::invalidArgument(
        "invalid_label",
        "label key '" + std::string(key.substr(0, 80)) + "' must match ^[a-z][a-z0-9_.-]{0,62}$",
        "labels");
  }
  const std::string field = "labels." + std::string(key);
  if (value.empty()) {
    return common::invalidArgument("invalid_label", field + " must not be empty", field);
  }
  if (value.size() > kMaxLabelValueLength) {
    return common::invalidArgument("invalid_label", field + " is longer than 128 characters",
                                   field);
  }
  return common::success();
}

common::Result<void> checkLabelChanges(const LabelChanges& changes) {
  for (const auto& [key, value] : changes) {
    PROV_TRY(checkLabel(key, value.value_or("x")));
  }
  return common::success();
}

common::Result<Labels> mergeLabels(const Labels& current, const LabelChanges& changes) {
  PROV_TRY(checkLabelChanges(changes));
  Labels out = current;
  for (const auto& [key, value] : changes) {
    if (value) {
      out[key] = *value;
    } else {
      out.erase(key);
    }
  }
  if (out.size() > kMaxLabelsPerNode) {
    return common::invalidArgument("too_many_labels", "a node has at most 64 labels", "labels");
  }
  return out;
}

common::Result<Labels> getNodeLabels(Database& db, Id node_id) {
  return detail::withRead(db, "get_node_labels", [&](Tx& tx) -> common::Result<Labels> {
    auto rows = tx.exec(detail::kSelectNodeLabels, node_id);
    if (rows.empty()) return detail::nodeNotFound(node_id);
    return detail::labelsFromText(detail::text(rows[0][0]));
  });
}

common::Result<Node> mergeNodeLabels(Database& db, Id node_id, const LabelChanges& changes,
                                     const std::string& actor) {
  PROV_TRY(checkLabelChanges(changes));
  return changeLabels(db, node_id, actor, "merge_node_labels",
                      [&](const Labels& before) { return mergeLabels(before, changes); });
}

common::Result<Node> setNodeLabels(Database& db, Id node_id, const Labels& labels,
                                   const std::string& actor) {
  LabelChanges changes;
  for (const auto& [key, value] : labels) changes.emplace(key, value);
  PROV_TRY(checkLabelChanges(changes));
  return changeLabels(db, node_id, actor, "set_node_labels",
                      [&](const Labels&) { return mergeLabels({}, changes); });
}

}  // namespace inventory
