#include "workflow_runs_rows.hpp"

#include <cmath>
#include <cstdio>

namespace inventory::detail {
namespace {

void appendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void appendField(std::string& out, std::string_view key, std::string_view value) {
  out.push_back(',');
  appendJsonString(out, key);
  out.push_back(':');
  appendJsonString(out, value);
}

std::string durationText(const std::optional<double>& ms) {
  if (!ms || !std::isfinite(*ms)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", *ms);
  return buf;
}

}  // namespace

std::int64_t micros(WallTime t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}

WallTime fromMicros(std::int64_t us) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::microseconds(us)));
}

std::string bigintArray(const std::vector<std::int64_t>& values) {
  std::string out = "{";
  for (std::int64_t v : values) {
    if (out.size() > 1) out.push_back(',');
    out += std::to_string(v);
  }
  out.push_back('}');
  return out;
}

WorkflowRun runFromRow(const pqxx::row& row) {
  WorkflowRun r;
  r.id = id(row[0]);
  r.kind = text(row[1]);
  r.subject = text(row[2]);
  r.state = text(row[3]);
  r.step = text(row[4]);
  r.attempt = integer(row[5]);
  r.next_run_at = fromMicros(row[6].as<std::int64_t>());
  r.waiting_for = text(row[7]);
  r.wakeups = row[8].as<std::int64_t>();
  r.lease_owner = text(row[9]);
  r.lease_epoch = row[10].as<std::int64_t>();
  r.context_json = text(row[11]);
  r.node_id = optId(row[12]);
  r.site = text(row[13]);
  r.rack = text(row[14]);
  r.reason = text(row[15]);
  r.detail_json = text(row[16]);
  r.step_started_at = fromMicros(row[17].as<std::int64_t>());
  r.created_by = text(row[18]);
  r.created_at = text(row[19]);
  r.updated_at = text(row[20]);
  r.finished_at = text(row[21]);
  return r;
}

WorkflowEventRecord workflowEventFromRow(const pqxx::row& row) {
  WorkflowEventRecord e;
  e.id = id(row[0]);
  e.run_id = id(row[1]);
  e.node_id = optId(row[2]);
  e.at = text(row[3]);
  e.at_time = fromMicros(row[4].as<std::int64_t>());
  e.actor = text(row[5]);
  e.step = text(row[6]);
  e.kind = text(row[7]);
  e.message = text(row[8]);
  e.detail_json = text(row[9]);
  if (!row[10].is_null()) e.duration_ms = row[10].as<double>();
  return e;
}

std::string eventsJson(const std::vector<WorkflowEventRecord>& events, WallTime now) {
  std::string out = "[";
  for (const auto& e : events) {
    if (out.size() > 1) out.push_back(',');
    const WallTime at = e.at_time == WallTime{} ? now : e.at_time;
    out += "{\"at\":" + std::to_string(micros(at));
    appendField(out, "actor", e.actor);
    appendField(out, "step", e.step);
    appendField(out, "kind", e.kind);
    appendField(out, "message", e.message);
    // Detail is JSON text already (from nlohmann in the engine); the statement checks it.
    out += ",\"detail\":" + (e.detail_json.empty() ? std::string("{}") : e.detail_json);
    out += ",\"duration_ms\":" + durationText(e.duration_ms) + "}";
  }
  out.push_back(']');
  return out;
}

common::Error runNotFound(Id run_id) {
  return common::notFound("run_not_found", "no workflow run with id " + std::to_string(run_id));
}

}  // namespace inventory::detail
