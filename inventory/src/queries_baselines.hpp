// SQL of baselines and their revisions (0005). Column list shared with revisionFromRow().
#pragma once

#include "db.hpp"

#define INVENTORY_REVISION_COLUMNS \
  "r.id, b.name, r.revision, r.content::text, r.digest, r.author, iso8601(r.created_at)"

namespace inventory::detail {

constexpr Query kInsertBaseline{"insert_baseline",
                                "INSERT INTO baselines (name, created_by) VALUES ($1, $2)"
                                " ON CONFLICT ON CONSTRAINT baselines_name_key DO NOTHING"};
// The baseline row locked, so revisions are numbered one at a time.
constexpr Query kLockBaseline{"lock_baseline",
                              "SELECT id FROM baselines WHERE name = $1 FOR UPDATE"};
constexpr Query kSelectBaselineId{"select_baseline_id", "SELECT id FROM baselines WHERE name = $1"};
constexpr Query kSelectLatestRevision{
    "select_latest_baseline_revision",
    "SELECT " INVENTORY_REVISION_COLUMNS
    " FROM baseline_revisions r JOIN baselines b ON b.id = r.baseline_id"
    " WHERE b.name = $1 ORDER BY r.revision DESC LIMIT 1"};
constexpr Query kSelectRevision{"select_baseline_revision",
                                "SELECT " INVENTORY_REVISION_COLUMNS
                                " FROM baseline_revisions r JOIN baselines b"
                                " ON b.id = r.baseline_id WHERE b.name = $1 AND r.revision = $2"};
constexpr Query kSelectRevisions{"select_baseline_revisions",
                                 "SELECT " INVENTORY_REVISION_COLUMNS
                                 " FROM baseline_revisions r JOIN baselines b"
                                 " ON b.id = r.baseline_id WHERE b.name = $1 ORDER BY r.revision"};
// The digest is computed here, of the text as given (the caller's canonical form).
constexpr Query kInsertRevision{
    "insert_baseline_revision",
    "WITH r AS (INSERT INTO baseline_revisions (baseline_id, revision, content, digest, author)"
    " VALUES ($1, $2, $3::text::jsonb, encode(sha256(convert_to($3::text, 'UTF8')), 'hex'), $4)"
    " RETURNING *)"
    " SELECT " INVENTORY_REVISION_COLUMNS " FROM r JOIN baselines b ON b.id = r.baseline_id"};
constexpr Query kSelectBaselinePage{
    "select_baseline_page",
    "SELECT b.id, b.name, r.revision, r.digest, b.created_by, iso8601(b.created_at),"
    " iso8601(r.created_at)"
    " FROM baselines b JOIN LATERAL (SELECT revision, digest, created_at FROM baseline_revisions"
    "   WHERE baseline_id = b.id ORDER BY revision DESC LIMIT 1) r ON true"
    " WHERE b.id > $1::bigint ORDER BY b.id LIMIT $2"};
constexpr Query kSelectLatestRevisions{
    "select_latest_baseline_revisions",
    "SELECT DISTINCT ON (b.name) " INVENTORY_REVISION_COLUMNS
    " FROM baseline_revisions r JOIN baselines b ON b.id = r.baseline_id"
    " WHERE b.name = ANY($1::text[]) ORDER BY b.name, r.revision DESC"};

}  // namespace inventory::detail
