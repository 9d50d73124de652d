// Reading node, component and event rows (see the column lists in queries_nodes.hpp), and writing
// timeline events: shared by nodes, components, reconciliation and asset lookup.
#pragma once

#include "db.hpp"
#include "inventory/types.hpp"

namespace inventory::detail {

using Labels = std::map<std::string, std::string>;
// The labels column as text (a JSON object of strings); anything else reads as no labels.
Labels labelsFromText(const std::string& text);
std::string labelsToText(const Labels& labels);

Node nodeFromRow(const pqxx::row& row);
Component componentFromRow(const pqxx::row& row);
NodeEvent eventFromRow(const pqxx::row& row);

NodeEvent insertEvent(Tx& tx, Id node_id, const std::string& actor, const std::string& kind,
                      const std::string& message, const std::string& detail_json);

common::Error nodeNotFound(Id id);

}  // namespace inventory::detail
