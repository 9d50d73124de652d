// Subnet sweep records: created running, progress written as probes complete, finished once.
#include "db.hpp"
#include "inventory/discovery.hpp"
#include "queries_discovery.hpp"

namespace inventory {
namespace {

using detail::Tx;

Sweep sweepFromRow(const pqxx::row& row) {
  Sweep s;
  s.id = detail::id(row[0]);
  s.cidr = detail::text(row[1]);
  s.scheme = detail::text(row[2]);
  s.port = detail::integer(row[3]);
  s.site = detail::text(row[4]);
  s.rack = detail::text(row[5]);
  s.state = detail::text(row[6]);
  s.addresses = detail::integer(row[7]);
  s.probed = detail::integer(row[8]);
  s.found = detail::integer(row[9]);
  s.error = detail::text(row[10]);
  s.requested_by = detail::text(row[11]);
  s.created_at = detail::text(row[12]);
  s.finished_at = detail::text(row[13]);
  return s;
}

common::Error sweepNotFound(Id id) {
  return common::notFound("sweep_not_found", "sweep " + std::to_string(id) + " not found");
}

common::Result<void> checkNewSweep(const NewSweep& sweep) {
  if (sweep.cidr.empty() || sweep.cidr.size() > 64) {
    return common::invalidArgument("invalid_cidr", "cidr is required", "cidr");
  }
  if (sweep.scheme != "http" && sweep.scheme != "https") {
    return common::invalidArgument("invalid_scheme", "scheme must be http or https", "scheme");
  }
  if (sweep.port < 1 || sweep.port > 65535) {
    return common::invalidArgument("invalid_port", "port must be 1 to 65535", "port");
  }
  if (sweep.addresses < 0) {
    return common::invalidArgument("invalid_addresses", "addresses must not be negative",
                                   "addresses");
  }
  return common::success();
}

}  // namespace

common::Result<Sweep> createSweep(Database& db, const NewSweep& sweep) {
  PROV_TRY(checkNewSweep(sweep));
  return detail::withTransaction(db, "create_sweep", [&](Tx& tx) -> common::Result<Sweep> {
    auto rows = tx.exec(detail::kInsertSweep, sweep.cidr, sweep.scheme, sweep.port, sweep.addresses,
                        sweep.site, sweep.rack, sweep.requested_by);
    return sweepFromRow(rows[0]);
  });
}

common::Result<void> updateSweepProgress(Database& db, Id sweep_id, int probed, int found) {
  return detail::withTransaction(db, "update_sweep", [&](Tx& tx) -> common::Result<void> {
    if (tx.exec(detail::kUpdateSweepProgress, sweep_id, probed, found).empty()) {
      return sweepNotFound(sweep_id);
    }
    return common::success();
  });
}

common::Result<Sweep> finishSweep(Database& db, Id sweep_id, const std::string& state,
                                  const std::string& error) {
  if (state != "done" && state != "failed") {
    return common::invalidArgument("invalid_state", "a sweep finishes done or failed", "state");
  }
  return detail::withTransaction(db, "finish_sweep", [&](Tx& tx) -> common::Result<Sweep> {
    auto rows = tx.exec(detail::kFinishSweep, sweep_id, state, error);
    if (rows.empty()) return sweepNotFound(sweep_id);
    return sweepFromRow(rows[0]);
  });
}

common::Result<Sweep> getSweep(Database& db, Id sweep_id) {
  return detail::withRead(db, "get_sweep", [&](Tx& tx) -> common::Result<Sweep> {
    auto rows = tx.exec(detail::kSelectSweep, sweep_id);
    if (rows.empty()) return sweepNotFound(sweep_id);
    return sweepFromRow(rows[0]);
  });
}

}  // namespace inventory
