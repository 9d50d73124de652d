// Firmware baselines and their immutable revisions (content as canonical JSON, its digest, who
// and when). A revision is only added when the content changed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct BaselineRevision {
  Id id = 0;
  std::string baseline;
  int revision = 0;
  std::string content_json;  // canonical
  std::string digest;        // SHA-256 hex of content_json
  std::string author;
  Timestamp created_at;
};

struct BaselineSummary {
  Id id = 0;
  std::string name;
  int latest_revision = 0;
  std::string digest;  // of the latest revision
  std::string created_by;
  Timestamp created_at;
  Timestamp updated_at;  // when the latest revision was made
};

struct BaselineApplication {
  BaselineRevision revision;  // the new one, or the latest when nothing changed
  bool created = false;
};

// Adds a revision with `content_json` unless the latest one has the same content. With
// `expected_latest` (0: the baseline must not exist yet), Conflict "baseline_changed" when
// another revision came first (the caller's diff would be stale).
common::Result<BaselineApplication> applyBaselineRevision(Database& db, const std::string& name,
                                                          const std::string& content_json,
                                                          std::optional<int> expected_latest,
                                                          const std::string& author);
// nullopt when the baseline does not exist.
common::Result<std::optional<BaselineRevision>> latestBaselineRevision(Database& db,
                                                                       const std::string& name);
// NotFound "baseline_not_found" / "revision_not_found".
common::Result<BaselineRevision> getBaselineRevision(Database& db, const std::string& name,
                                                     int revision);
// Oldest first; NotFound "baseline_not_found".
common::Result<std::vector<BaselineRevision>> listBaselineRevisions(Database& db,
                                                                    const std::string& name);
common::Result<Page<BaselineSummary>> listBaselines(Database& db, const PageRequest& page);
// The latest revision of each of these baselines (absent names are left out).
common::Result<std::vector<BaselineRevision>> latestBaselineRevisions(
    Database& db, const std::vector<std::string>& names);

}  // namespace inventory
