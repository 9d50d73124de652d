// SQL of campaigns, their nodes and timeline (migration 0006). Every time is a parameter in
// microseconds since the epoch (the engine's clock), never now().
#pragma once

#include "db.hpp"

// A time parameter: $n holds microseconds since the epoch (NULL stays NULL).
#define INVENTORY_CAMPAIGN_TS(n) \
  "(timestamptz 'epoch' + $" #n "::bigint * interval '1 microsecond')"
#define INVENTORY_CAMPAIGN_MICROS(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

// Columns read by detail::campaignFromRow(), from campaigns aliased c.
#define INVENTORY_CAMPAIGN_COLUMNS \
  "c.id, c.name, c.kind, c.state, c.spec::text, c.baseline_name, c.baseline_revision,"           \
  " c.image_name, c.image_version, c.pause_reason, c.pause_detail::text, c.rollback_requested," \
  " c.current_wave, " INVENTORY_CAMPAIGN_MICROS("c.wave_started_at")                             \
  ", " INVENTORY_CAMPAIGN_MICROS("c.bake_until")                                                 \
  ", iso8601(c.wave_started_at), iso8601(c.bake_until), c.created_by, iso8601(c.created_at),"    \
  " iso8601(c.started_at), iso8601(c.finished_at), iso8601(c.updated_at),"                       \
  " (SELECT count(*)::integer FROM campaign_nodes x WHERE x.campaign_id = c.id)"

// Columns read by detail::campaignNodeFromRow(), from campaign_nodes cn joined to nodes n.
#define INVENTORY_CAMPAIGN_NODE_COLUMNS                                                       \
  "cn.campaign_id, cn.node_id, n.chassis_serial, cn.wave, cn.position, cn.state, cn.run_id,"  \
  " cn.reason, cn.detail::text, cn.components::text, cn.estimated_seconds, cn.site, cn.rack," \
  " cn.hardware_model, cn.labels::text, iso8601(cn.started_at), iso8601(cn.finished_at),"     \
  " iso8601(cn.updated_at)"

#define INVENTORY_CAMPAIGN_EVENT_COLUMNS \
  "e.id, e.campaign_id, e.node_id, iso8601(e.at), e.actor, e.kind, e.message, e.detail::text"

namespace inventory::detail {

// Serialises campaign creation and starts, so two campaigns can never both take a node into
// running: "prov.camp" in ASCII.
inline constexpr long long kCampaignNodesLockKey = 0x70726f762e63616dLL;
constexpr Query kLockCampaignNodes{"lock_campaign_nodes", "SELECT pg_advisory_xact_lock($1)"};

// Candidates ---------------------------------------------------------------------------------

// $1 site, $2 racks text[], $3 model, $4 states text[], $5 labels jsonb, $6 ids bigint[].
constexpr Query kSelectCampaignCandidates{
    "select_campaign_candidates",
    "SELECT n.id, n.chassis_serial, n.state, n.hardware_model, coalesce(s.name, ''),"
    " coalesce(r.name, ''), n.labels::text"
    " FROM nodes n LEFT JOIN racks r ON r.id = n.rack_id LEFT JOIN sites s ON s.id = r.site_id"
    " WHERE ($1 = '' OR s.name = $1)"
    " AND (cardinality($2::text[]) = 0 OR r.name = ANY($2::text[]))"
    " AND ($3 = '' OR n.hardware_model = $3)"
    " AND (cardinality($4::text[]) = 0 OR n.state = ANY($4::text[]))"
    " AND n.labels @> $5::jsonb"
    " AND (cardinality($6::bigint[]) = 0 OR n.id = ANY($6::bigint[]))"
    " ORDER BY n.id"};

// Creation -----------------------------------------------------------------------------------

// The first of nodes $1 that is in a running or paused campaign: node, serial, campaign, state.
constexpr Query kSelectNodesInOpenCampaigns{
    "select_nodes_in_open_campaigns",
    "SELECT cn.node_id, n.chassis_serial, c.id, c.name, c.state"
    " FROM campaign_nodes cn JOIN campaigns c ON c.id = cn.campaign_id"
    " JOIN nodes n ON n.id = cn.node_id"
    " WHERE c.state IN ('running', 'paused') AND cn.node_id = ANY($1::bigint[])"
    " ORDER BY cn.node_id, c.id LIMIT 1"};
// The same for the nodes of campaign $1 (other campaigns only).
constexpr Query kSelectCampaignNodesInOtherOpenCampaigns{
    "select_campaign_nodes_in_other_open_campaigns",
    "SELECT cn.node_id, n.chassis_serial, c.id, c.name, c.state"
    " FROM campaign_nodes mine"
    " JOIN campaign_nodes cn ON cn.node_id = mine.node_id AND cn.campaign_id <> mine.campaign_id"
    " JOIN campaigns c ON c.id = cn.campaign_id JOIN nodes n ON n.id = cn.node_id"
    " WHERE mine.campaign_id = $1 AND c.state IN ('running', 'paused')"
    " ORDER BY cn.node_id, c.id LIMIT 1"};

constexpr Query kInsertCampaign{
    "insert_campaign",
    "INSERT INTO campaigns (name, kind, spec, baseline_name, baseline_revision, image_name,"
    " image_version, created_by, created_at, updated_at)"
    " VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, " INVENTORY_CAMPAIGN_TS(
        9) ", " INVENTORY_CAMPAIGN_TS(9) ") RETURNING id"};

// The nodes of campaign $1 from a JSON array $2 of {node_id, wave, position, components,
// estimated_seconds, site, rack, hardware_model, labels}; $3 now.
constexpr Query kInsertCampaignNodes{
    "insert_campaign_nodes",
    "INSERT INTO campaign_nodes (campaign_id, node_id, wave, position, components,"
    " estimated_seconds, site, rack, hardware_model, labels, updated_at)"
    " SELECT $1, (x->>'node_id')::bigint, (x->>'wave')::integer, (x->>'position')::integer,"
    " coalesce(x->'components', '[]'), coalesce((x->>'estimated_seconds')::integer, 0),"
    " coalesce(x->>'site', ''), coalesce(x->>'rack', ''), coalesce(x->>'hardware_model', ''),"
    " coalesce(x->'labels', '{}'), " INVENTORY_CAMPAIGN_TS(
        3) " FROM jsonb_array_elements($2::jsonb) AS x"};

// Reads --------------------------------------------------------------------------------------

constexpr Query kSelectCampaign{
    "select_campaign", "SELECT " INVENTORY_CAMPAIGN_COLUMNS " FROM campaigns c WHERE c.id = $1"};
constexpr Query kCampaignExists{"campaign_exists", "SELECT 1 FROM campaigns WHERE id = $1"};
constexpr Query kSelectCampaignPage{"select_campaign_page",
                                    "SELECT " INVENTORY_CAMPAIGN_COLUMNS
                                    " FROM campaigns c WHERE ($1 = '' OR c.state = $1)"
                                    " AND ($2 = '' OR c.kind = $2) AND c.id > $3::bigint"
                                    " ORDER BY c.id LIMIT $4"};

// $2 wave or NULL, $3 states text[], $4 after position, $5 limit or NULL (all).
constexpr Query kSelectCampaignNodes{
    "select_campaign_nodes",
    "SELECT " INVENTORY_CAMPAIGN_NODE_COLUMNS
    " FROM campaign_nodes cn JOIN nodes n ON n.id = cn.node_id WHERE cn.campaign_id = $1"
    " AND ($2::integer IS NULL OR cn.wave = $2::integer)"
    " AND (cardinality($3::text[]) = 0 OR cn.state = ANY($3::text[]))"
    " AND cn.position > $4::integer ORDER BY cn.position LIMIT $5::bigint"};
constexpr Query kSelectCampaignNode{"select_campaign_node",
                                    "SELECT " INVENTORY_CAMPAIGN_NODE_COLUMNS
                                    " FROM campaign_nodes cn JOIN nodes n ON n.id = cn.node_id"
                                    " WHERE cn.campaign_id = $1 AND cn.node_id = $2"};

constexpr Query kSelectCampaignProgress{
    "select_campaign_progress",
    "SELECT wave, state, count(*)::integer, sum(estimated_seconds)::bigint FROM campaign_nodes"
    " WHERE campaign_id = $1 GROUP BY wave, state ORDER BY wave, state"};

// Transitions --------------------------------------------------------------------------------

constexpr Query kLockCampaign{"lock_campaign",
                              "SELECT state FROM campaigns WHERE id = $1 FOR UPDATE"};

// $2 to, $3 reason, $4 detail, $5 rollback_requested or NULL, $6 now.
constexpr Query kUpdateCampaignState{
    "update_campaign_state",
    "UPDATE campaigns SET state = $2,"
    " pause_reason = CASE WHEN $2 = 'paused' THEN $3 WHEN $2 = 'running' THEN ''"
    " ELSE pause_reason END,"
    " pause_detail = CASE WHEN $2 = 'paused' THEN $4::jsonb WHEN $2 = 'running' THEN '{}'"
    " ELSE pause_detail END,"
    " rollback_requested = coalesce($5::boolean, rollback_requested),"
    " started_at = CASE WHEN $2 = 'running' THEN coalesce(started_at, " INVENTORY_CAMPAIGN_TS(
        6) ") WHEN $2 = 'draft' THEN NULL ELSE started_at END,"
           " finished_at = CASE WHEN $2 IN ('completed', 'cancelled')"
           " THEN " INVENTORY_CAMPAIGN_TS(6) " ELSE NULL END,"
                                            " updated_at = " INVENTORY_CAMPAIGN_TS(
                                                6) " WHERE id = $1"};

// Cancelling a campaign: the nodes that never started are cancelled with it ($2 now).
constexpr Query kCancelPendingCampaignNodes{
    "cancel_pending_campaign_nodes",
    "UPDATE campaign_nodes SET state = 'cancelled', reason = 'campaign cancelled',"
    " finished_at = " INVENTORY_CAMPAIGN_TS(2) ", updated_at = " INVENTORY_CAMPAIGN_TS(
        2) " WHERE campaign_id = $1 AND state = 'pending'"};

// $2 wave, $3 wave started, $4 bake until or NULL, $5 now.
constexpr Query kSetCampaignWave{
    "set_campaign_wave",
    "UPDATE campaigns SET current_wave = $2, wave_started_at = " INVENTORY_CAMPAIGN_TS(
        3) ", bake_until = " INVENTORY_CAMPAIGN_TS(4) ", updated_at = " INVENTORY_CAMPAIGN_TS(
        5) " WHERE id = $1 RETURNING id"};

// $3 state, $4 reason, $5 detail, $6 run_id or NULL (kept), $7 now, $8 actor. A change of
// state appends a node_<state> event in the same statement.
constexpr Query kUpdateCampaignNode{
    "update_campaign_node",
    "WITH old AS (SELECT state FROM campaign_nodes WHERE campaign_id = $1 AND node_id = $2"
    " FOR UPDATE),"
    " upd AS (UPDATE campaign_nodes cn SET state = $3, reason = $4, detail = $5::jsonb,"
    " run_id = coalesce($6::bigint, cn.run_id),"
    " started_at = CASE WHEN $3 = 'running' THEN coalesce(cn.started_at, " INVENTORY_CAMPAIGN_TS(
        7) ") ELSE cn.started_at END,"
           " finished_at = CASE WHEN $3 IN ('pending', 'running') THEN NULL"
           " WHEN cn.state = $3 THEN coalesce(cn.finished_at, " INVENTORY_CAMPAIGN_TS(
               7) ") ELSE " INVENTORY_CAMPAIGN_TS(7) " END,"
                                                     " updated_at = " INVENTORY_CAMPAIGN_TS(
                                                         7) " FROM old"
                                                            " WHERE cn.campaign_id = $1 AND "
                                                            "cn.node_id = $2"
                                                            " RETURNING cn.*, old.state AS "
                                                            "old_state),"
    " ev AS (INSERT INTO campaign_events (campaign_id, node_id, at, actor, kind, message, detail)"
    " SELECT u.campaign_id, u.node_id, " INVENTORY_CAMPAIGN_TS(
        7) ", $8, 'node_' || u.state,"
           " 'node ' || u.node_id || ': ' || u.old_state || ' -> ' || u.state"
           " || CASE WHEN u.reason <> '' THEN ': ' || u.reason ELSE '' END,"
           " jsonb_build_object('from', u.old_state, 'to', u.state, 'reason', u.reason,"
           " 'run_id', u.run_id)"
           " FROM upd u WHERE u.old_state <> u.state)"
           " SELECT " INVENTORY_CAMPAIGN_NODE_COLUMNS " FROM upd cn JOIN nodes n ON n.id = "
           "cn.node_id"};

// Admission ($1 campaign): the nodes in flight now, in id order.
constexpr Query kSelectRunningCampaignNodes{
    "select_running_campaign_nodes",
    "SELECT node_id FROM campaign_nodes WHERE campaign_id = $1 AND state = 'running'"
    " ORDER BY node_id"};

// $2 node, $3 the state it must be in, $4 reason, $5 detail, $6 now, $7 actor. It enters
// running with no run yet (the controller starts one next); with its node_running event.
constexpr Query kAdmitCampaignNode{
    "admit_campaign_node",
    "WITH upd AS (UPDATE campaign_nodes cn SET state = 'running', reason = $4,"
    " detail = $5::jsonb, run_id = NULL,"
    " started_at = coalesce(cn.started_at, " INVENTORY_CAMPAIGN_TS(6) "), finished_at = NULL,"
    " updated_at = " INVENTORY_CAMPAIGN_TS(6) " WHERE cn.campaign_id = $1 AND cn.node_id = $2"
    " AND cn.state = $3 RETURNING cn.campaign_id, cn.node_id, cn.reason),"
    " ev AS (INSERT INTO campaign_events (campaign_id, node_id, at, actor, kind, message, detail)"
    " SELECT u.campaign_id, u.node_id, " INVENTORY_CAMPAIGN_TS(6) ", $7, 'node_running',"
    " 'node ' || u.node_id || ': ' || $3 || ' -> running'"
    " || CASE WHEN u.reason <> '' THEN ': ' || u.reason ELSE '' END,"
    " jsonb_build_object('from', $3::text, 'to', 'running', 'reason', u.reason, 'admitted', true)"
    " FROM upd u)"
    " SELECT count(*)::integer FROM upd"};

// $2 node, $3 run: the run started for an admitted node (only while it has none).
constexpr Query kSetCampaignNodeRun{
    "set_campaign_node_run",
    "UPDATE campaign_nodes SET run_id = $3 WHERE campaign_id = $1 AND node_id = $2"
    " AND state = 'running' AND run_id IS NULL RETURNING node_id"};

// Events -------------------------------------------------------------------------------------

// $3 at, $4 actor, $5 kind, $6 message, $7 detail.
constexpr Query kInsertCampaignEvent{
    "insert_campaign_event",
    "INSERT INTO campaign_events AS e (campaign_id, node_id, at, actor, kind, message, detail)"
    " VALUES ($1, $2, " INVENTORY_CAMPAIGN_TS(3) ", $4, $5, $6, $7::jsonb)"
                                                 " RETURNING " INVENTORY_CAMPAIGN_EVENT_COLUMNS};
constexpr Query kSelectCampaignEvents{"select_campaign_events",
                                      "SELECT " INVENTORY_CAMPAIGN_EVENT_COLUMNS
                                      " FROM campaign_events e WHERE e.campaign_id = $1"
                                      " AND e.id > $2::bigint ORDER BY e.id LIMIT $3"};

}  // namespace inventory::detail
