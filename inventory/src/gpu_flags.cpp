// GPU health flags: raising the rules' drafts, acknowledging and clearing (with who and when),
// the reads behind the flags API, and the evidence a flag evaluation feeds to the rules.
#include "inventory/gpu_flags.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "db.hpp"
#include "gpu_health_rows.hpp"
#include "queries_gpu_flags.hpp"

namespace inventory {
namespace {

using detail::Tx;
namespace h = health;

std::optional<Id> optionalId(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<Id>();
}

GpuFlag flagFromRow(const pqxx::row& row) {
  GpuFlag f;
  f.id = detail::id(row[0]);
  f.serial = detail::text(row[1]);
  f.rule = detail::text(row[2]);
  f.severity = detail::text(row[3]);
  f.action = detail::text(row[4]);
  f.state = detail::text(row[5]);
  f.reason = detail::text(row[6]);
  f.evidence_json = detail::text(row[7]);
  f.node_id = optionalId(row[8]);
  f.evidence_at = detail::text(row[9]);
  f.raised_at = detail::text(row[10]);
  f.acknowledged_at = detail::text(row[11]);
  f.acknowledged_by = detail::text(row[12]);
  f.acknowledge_note = detail::text(row[13]);
  f.cleared_at = detail::text(row[14]);
  f.cleared_by = detail::text(row[15]);
  f.clear_note = detail::text(row[16]);
  f.action_at = detail::text(row[17]);
  f.action_run_id = optionalId(row[18]);
  f.released_at = detail::text(row[19]);
  return f;
}

common::Result<void> checkDraft(const h::FlagDraft& d, std::size_t i) {
  const std::string at = "drafts[" + std::to_string(i) + "].";
  if (d.serial.empty()) {
    return common::fail(common::invalidArgument("invalid_flag", "empty serial", at + "serial"));
  }
  if (d.rule.empty() || d.rule.size() > 64) {
    return common::fail(common::invalidArgument("invalid_flag", "bad rule id", at + "rule"));
  }
  if (d.reason.empty()) {
    return common::fail(common::invalidArgument("invalid_flag", "empty reason", at + "reason"));
  }
  const auto ev =
      nlohmann::json::parse(d.evidence_json.empty() ? "{}" : d.evidence_json, nullptr, false);
  if (ev.is_discarded() || !ev.is_object()) {
    return common::fail(
        common::invalidArgument("invalid_flag", "evidence must be a JSON object", at + "evidence"));
  }
  return common::success();
}

GpuFlag readFlag(Tx& tx, Id id) {
  return flagFromRow(tx.exec(detail::kGetFlag, id).at(0));
}

common::Result<GpuFlag> transition(Database& db, const char* operation, Id flag_id,
                                   const std::string& who, const std::string& note, h::Seconds now,
                                   bool clear) {
  if (who.empty()) {
    return common::fail(common::invalidArgument("invalid_actor", "who must not be empty", "by"));
  }
  return detail::withTransaction(db, operation, [&](Tx& tx) -> common::Result<GpuFlag> {
    auto locked = tx.exec(detail::kLockFlag, flag_id);
    if (locked.empty()) {
      return common::fail(common::notFound("flag_not_found", "no flag " + std::to_string(flag_id)));
    }
    const std::string state = locked[0][0].c_str();
    const std::string at = detail::sqlTime(now);
    if (clear) {
      if (state == "cleared") {
        return common::fail(common::conflict("flag_cleared", "the flag is already cleared"));
      }
      tx.exec(detail::kClearFlag, flag_id, at, who, note);
      tx.exec(detail::kFlagEvent, flag_id, "flag_cleared", at, who, note);
    } else {
      if (state != "open") {
        return common::fail(common::conflict("flag_not_open", "the flag is " + state));
      }
      tx.exec(detail::kAcknowledgeFlag, flag_id, at, who, note);
      tx.exec(detail::kFlagEvent, flag_id, "flag_acknowledged", at, who, note);
    }
    return readFlag(tx, flag_id);
  });
}

h::Seconds epoch(const pqxx::field& f) {
  return h::Seconds{std::chrono::seconds{f.as<long long>()}};
}

double num(const pqxx::field& f) {
  return f.is_null() ? 0.0 : f.as<double>();
}

h::Stat statAt(const pqxx::row& row, int i) {
  h::Stat s;
  s.count = row[i].is_null() ? 0 : row[i].as<long long>();
  if (s.count == 0) return s;
  s.sum = num(row[i + 1]);
  s.min = num(row[i + 2]);
  s.max = num(row[i + 3]);
  return s;
}

std::optional<double> optionalNum(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<double>();
}

}  // namespace

common::Result<FlagRaiseResult> raiseFlags(Database& db, const std::vector<h::FlagDraft>& drafts,
                                           h::Seconds now) {
  for (std::size_t i = 0; i < drafts.size(); ++i) PROV_TRY(checkDraft(drafts[i], i));
  return detail::withTransaction(
      db, "raise_gpu_flags", [&](Tx& tx) -> common::Result<FlagRaiseResult> {
        FlagRaiseResult out;
        const std::string at = detail::sqlTime(now);
        for (const auto& d : drafts) {
          const std::string evidence_at = detail::sqlTime(d.raised_at);
          auto rows =
              tx.exec(detail::kRaiseFlag, d.serial, d.rule, std::string(h::toString(d.severity)),
                      std::string(h::toString(d.action)), d.reason,
                      d.evidence_json.empty() ? std::string("{}") : d.evidence_json, evidence_at,
                      at, static_cast<long long>(d.node_id));
          if (!rows.empty()) {
            out.raised.push_back(flagFromRow(rows[0]));
          } else if (tx.exec(detail::kFlagSuppressed, d.serial, d.rule, evidence_at)[0][0]
                         .as<bool>()) {
            ++out.suppressed;
          } else {
            ++out.already_open;
          }
        }
        return out;
      });
}

common::Result<GpuFlag> acknowledgeFlag(Database& db, Id flag_id, const std::string& who,
                                        const std::string& note, h::Seconds now) {
  return transition(db, "acknowledge_gpu_flag", flag_id, who, note, now, false);
}

common::Result<GpuFlag> clearFlag(Database& db, Id flag_id, const std::string& who,
                                  const std::string& note, h::Seconds now) {
  return transition(db, "clear_gpu_flag", flag_id, who, note, now, true);
}

common::Result<bool> markFlagActionStarted(Database& db, Id flag_id, std::optional<Id> run_id,
                                           h::Seconds now) {
  return detail::withTransaction(
      db, "gpu_flag_action_started", [&](Tx& tx) -> common::Result<bool> {
        const std::string at = detail::sqlTime(now);
        auto r = tx.exec(detail::kFlagActionStarted, flag_id, at, run_id);
        if (r.affected_rows() != 1) return false;
        tx.exec(detail::kFlagEvent, flag_id, "flag_action_started", at, "service",
                run_id ? "run " + std::to_string(*run_id) : std::string());
        return true;
      });
}

common::Result<void> recordFlagActionEvent(Database& db, Id flag_id, const std::string& kind,
                                           const std::string& note, h::Seconds now) {
  if (kind != "flag_drained" && kind != "rma_candidate") {
    return common::fail(
        common::invalidArgument("invalid_kind", "no flag action event " + kind, "kind"));
  }
  return detail::withTransaction(db, "gpu_flag_action_event", [&](Tx& tx) -> common::Result<void> {
    auto r = tx.exec(detail::kFlagEvent, flag_id, kind, detail::sqlTime(now), "service", note);
    if (r.affected_rows() != 1) {
      return common::fail(common::notFound("flag_not_found", "no flag " + std::to_string(flag_id)));
    }
    return common::success();
  });
}

common::Result<std::vector<GpuFlag>> listFlagsToRelease(Database& db) {
  return detail::withRead(db, "gpu_flags_to_release",
                          [&](Tx& tx) -> common::Result<std::vector<GpuFlag>> {
                            std::vector<GpuFlag> out;
                            for (const auto& row : tx.exec(detail::kFlagsToRelease)) {
                              out.push_back(flagFromRow(row));
                            }
                            return out;
                          });
}

common::Result<std::vector<Id>> flagsHoldingNode(Database& db, Id node_id, Id except) {
  return detail::withRead(
      db, "gpu_flags_holding_node", [&](Tx& tx) -> common::Result<std::vector<Id>> {
        std::vector<Id> out;
        for (const auto& row : tx.exec(detail::kFlagsHoldingNode, node_id, except)) {
          out.push_back(detail::id(row[0]));
        }
        return out;
      });
}

common::Result<bool> markFlagReleased(Database& db, Id flag_id, std::optional<Id> run_id,
                                      const std::string& note, h::Seconds now) {
  return detail::withTransaction(db, "gpu_flag_released", [&](Tx& tx) -> common::Result<bool> {
    const std::string at = detail::sqlTime(now);
    if (tx.exec(detail::kFlagReleased, flag_id, at, run_id).affected_rows() != 1) return false;
    tx.exec(detail::kFlagEvent, flag_id, "flag_released", at, "service", note);
    return true;
  });
}

common::Result<GpuFlag> getFlag(Database& db, Id flag_id) {
  return detail::withRead(db, "get_gpu_flag", [&](Tx& tx) -> common::Result<GpuFlag> {
    auto rows = tx.exec(detail::kGetFlag, flag_id);
    if (rows.empty()) {
      return common::fail(common::notFound("flag_not_found", "no flag " + std::to_string(flag_id)));
    }
    return flagFromRow(rows[0]);
  });
}

common::Result<std::vector<GpuFlag>> listFlags(Database& db, const FlagFilter& filter) {
  return detail::withRead(
      db, "list_gpu_flags", [&](Tx& tx) -> common::Result<std::vector<GpuFlag>> {
        std::vector<GpuFlag> out;
        for (const auto& row :
             tx.exec(detail::kListFlags, filter.serial, filter.node_id, filter.state, filter.rule,
                     filter.severity, filter.page.after, filter.page.limit)) {
          out.push_back(flagFromRow(row));
        }
        return out;
      });
}

common::Result<FlagEvaluationInput> loadFlagEvaluationInput(Database& db, h::Seconds since,
                                                            h::Seconds now, int lookback_days,
                                                            int peer_days) {
  const h::Days today = h::dayOf(now);
  const std::string from = detail::sqlTime(h::Seconds{today - std::chrono::days{lookback_days}});
  const std::string peer_from = detail::sqlTime(h::Seconds{today - std::chrono::days{peer_days}});
  const std::string to = detail::sqlTime(h::Seconds{today});
  const std::string since_text = detail::sqlTime(since);
  return detail::withRead(
      db, "load_flag_evaluation", [&](Tx& tx) -> common::Result<FlagEvaluationInput> {
        FlagEvaluationInput in;
        std::map<std::string, std::size_t> index;
        for (const auto& row : tx.exec(detail::kFlagGpus, since_text)) {
          h::GpuEvidence e;
          e.serial = row[0].c_str();
          e.now = now;
          e.counters = h::CounterSnapshot{epoch(row[2]), row[3].as<bool>(), row[4].as<bool>()};
          index[e.serial] = in.gpus.size();
          in.nodes.emplace_back(e.serial, detail::id(row[1]));
          in.gpus.push_back(std::move(e));
        }
        auto gpu = [&](const pqxx::field& serial) -> h::GpuEvidence* {
          auto it = index.find(serial.c_str());
          return it == index.end() ? nullptr : &in.gpus[it->second];
        };
        for (const auto& row : tx.exec(detail::kFlagDays, since_text, from, to)) {
          auto* e = gpu(row[0]);
          if (!e) continue;
          h::DayAggregate d;
          d.day = h::dayOf(epoch(row[1]));
          d.samples = row[2].as<long long>();
          d.temperature_c = statAt(row, 3);
          d.power_w = statAt(row, 7);
          d.sm_clock_mhz = statAt(row, 11);
          d.throttled_samples = row[15].as<long long>();
          d.ecc_corrected = row[16].as<long long>();
          d.ecc_uncorrected = row[17].as<long long>();
          d.xids = row[18].as<long long>();
          d.pcie_replays = row[19].as<long long>();
          d.hbm_temperature_c = statAt(row, 20);
          d.mem_clock_mhz = statAt(row, 24);
          d.gpu_utilization_pct = statAt(row, 28);
          e->days.push_back(d);
        }
        for (const auto& row : tx.exec(detail::kFlagBursts, since_text, from)) {
          if (auto* e = gpu(row[0])) {
            e->xid_bursts.push_back({std::nullopt, row[1].as<int>(), epoch(row[2]), epoch(row[3]),
                                     row[4].as<long long>()});
          }
        }
        // The hours that ended within the last day (the rate rule's window), whole: the one
        // that started 25 h ago ended 24 h ago.
        const std::string day_ago = detail::sqlTime(now - std::chrono::hours{25});
        for (const auto& row : tx.exec(detail::kFlagHourReplays, since_text, day_ago)) {
          if (auto* e = gpu(row[0])) {
            e->hourly_replays.push_back({epoch(row[1]), row[2].as<long long>()});
          }
        }
        for (const auto& row : tx.exec(detail::kFlagRemaps, since_text, from)) {
          if (auto* e = gpu(row[0])) e->remaps.push_back({epoch(row[1]), row[2].as<long long>()});
        }
        for (const auto& row : tx.exec(detail::kFlagPast, since_text, from)) {
          if (auto* e = gpu(row[0])) e->past_flags.push_back({row[1].c_str(), epoch(row[2])});
        }
        std::map<std::pair<Id, std::string>, std::size_t> groups;
        for (const auto& row : tx.exec(detail::kFlagPeers, since_text, peer_from, to)) {
          const auto key = std::make_pair(detail::id(row[0]), std::string(row[1].c_str()));
          auto [it, fresh] = groups.try_emplace(key, in.peer_groups.size());
          if (fresh) {
            h::PeerGroup g;
            g.label = "rack " + std::string(row[2].c_str()) +
                      (key.second.empty() ? std::string() : ", " + key.second);
            in.peer_groups.push_back(std::move(g));
          }
          auto& g = in.peer_groups[it->second];
          const h::Days day = h::dayOf(epoch(row[4]));
          if (g.days.empty() || g.days.back().day != day) g.days.push_back({day, {}});
          g.days.back().gpus.push_back({row[3].c_str(), row[5].as<long long>(), optionalNum(row[6]),
                                        optionalNum(row[7]), optionalNum(row[8])});
        }
        return in;
      });
}

}  // namespace inventory
