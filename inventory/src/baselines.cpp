// Baselines: immutable, numbered revisions, a new one only when the content changed.
#include "inventory/baselines.hpp"

#include <nlohmann/json.hpp>

#include "db.hpp"
#include "queries_baselines.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

BaselineRevision revisionFromRow(const pqxx::row& row) {
  BaselineRevision r;
  r.id = detail::id(row[0]);
  r.baseline = row[1].c_str();
  r.revision = row[2].as<int>();
  r.content_json = row[3].c_str();
  r.digest = row[4].c_str();
  r.author = row[5].c_str();
  r.created_at = row[6].c_str();
  return r;
}

bool sameContent(const std::string& stored_jsonb_text, const std::string& content) {
  const auto a = nlohmann::json::parse(stored_jsonb_text, nullptr, false);
  const auto b = nlohmann::json::parse(content, nullptr, false);
  return !a.is_discarded() && a == b;
}

common::Error baselineNotFound(const std::string& name) {
  return common::notFound("baseline_not_found", "no baseline named " + name);
}

common::Error changedMeanwhile(const std::string& name, int latest) {
  return common::conflict("baseline_changed",
                          "baseline " + name + " is at revision " + std::to_string(latest) +
                              " now; look at the diff again and apply again",
                          "name");
}

}  // namespace

common::Result<BaselineApplication> applyBaselineRevision(Database& db, const std::string& name,
                                                          const std::string& content_json,
                                                          std::optional<int> expected_latest,
                                                          const std::string& author) {
  if (nlohmann::json::parse(content_json, nullptr, false).is_discarded()) {
    return common::invalidArgument("invalid_json", "the baseline content is not JSON", "content");
  }
  using Out = BaselineApplication;
  return detail::withTransaction(db, "apply_baseline", [&](Tx& tx) -> common::Result<Out> {
    tx.exec(detail::kInsertBaseline, name, author);
    auto locked = tx.exec(detail::kLockBaseline, name);
    if (locked.empty()) return baselineNotFound(name);
    const Id baseline_id = detail::id(locked[0][0]);
    auto latest = tx.exec(detail::kSelectLatestRevision, name);
    const int latest_number = latest.empty() ? 0 : latest[0][2].as<int>();
    if (!latest.empty() && sameContent(latest[0][3].c_str(), content_json)) {
      return Out{revisionFromRow(latest[0]), false};
    }
    if (expected_latest && *expected_latest != latest_number) {
      return changedMeanwhile(name, latest_number);
    }
    auto inserted =
        tx.exec(detail::kInsertRevision, baseline_id, latest_number + 1, content_json, author);
    return Out{revisionFromRow(inserted[0]), true};
  });
}

common::Result<std::optional<BaselineRevision>> latestBaselineRevision(Database& db,
                                                                       const std::string& name) {
  using Found = std::optional<BaselineRevision>;
  return detail::withRead(db, "latest_baseline_revision", [&](Tx& tx) -> common::Result<Found> {
    auto rows = tx.exec(detail::kSelectLatestRevision, name);
    if (rows.empty()) return Found();
    return Found(revisionFromRow(rows[0]));
  });
}

common::Result<BaselineRevision> getBaselineRevision(Database& db, const std::string& name,
                                                     int revision) {
  return detail::withRead(
      db, "get_baseline_revision", [&](Tx& tx) -> common::Result<BaselineRevision> {
        auto rows = tx.exec(detail::kSelectRevision, name, revision);
        if (!rows.empty()) return revisionFromRow(rows[0]);
        if (tx.exec(detail::kSelectBaselineId, name).empty()) return baselineNotFound(name);
        return common::notFound("revision_not_found", "baseline " + name + " has no revision " +
                                                          std::to_string(revision));
      });
}

common::Result<std::vector<BaselineRevision>> listBaselineRevisions(Database& db,
                                                                    const std::string& name) {
  using Out = std::vector<BaselineRevision>;
  return detail::withRead(db, "list_baseline_revisions", [&](Tx& tx) -> common::Result<Out> {
    Out out;
    for (const auto& row : tx.exec(detail::kSelectRevisions, name)) {
      out.push_back(revisionFromRow(row));
    }
    if (out.empty()) return baselineNotFound(name);
    return out;
  });
}

common::Result<Page<BaselineSummary>> listBaselines(Database& db, const PageRequest& page) {
  const int limit = detail::clampLimit(page.limit);
  using Out = Page<BaselineSummary>;
  return detail::withRead(db, "list_baselines", [&](Tx& tx) -> common::Result<Out> {
    std::vector<BaselineSummary> items;
    for (const auto& row : tx.exec(detail::kSelectBaselinePage, page.after, limit + 1)) {
      BaselineSummary s;
      s.id = detail::id(row[0]);
      s.name = row[1].c_str();
      s.latest_revision = row[2].as<int>();
      s.digest = row[3].c_str();
      s.created_by = row[4].c_str();
      s.created_at = row[5].c_str();
      s.updated_at = row[6].c_str();
      items.push_back(std::move(s));
    }
    return detail::makePage(std::move(items), limit);
  });
}

common::Result<std::vector<BaselineRevision>> latestBaselineRevisions(
    Database& db, const std::vector<std::string>& names) {
  using Out = std::vector<BaselineRevision>;
  if (names.empty()) return Out();
  return detail::withRead(db, "latest_baseline_revisions", [&](Tx& tx) -> common::Result<Out> {
    Out out;
    for (const auto& row : tx.exec(detail::kSelectLatestRevisions, detail::textArray(names))) {
      out.push_back(revisionFromRow(row));
    }
    return out;
  });
}

}  // namespace inventory
