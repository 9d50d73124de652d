#include "campaign_render.hpp"

#include <cstdio>

#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using nlohmann::json;

std::int64_t number(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return 0;
  return it->is_number_integer() ? it->get<std::int64_t>()
                                 : static_cast<std::int64_t>(it->get<double>());
}

// "bmc 1.0 -> 1.2, gpu 96.00.5E -> 96.00.7A"
std::string componentsText(const json& components) {
  std::string out;
  for (const auto& c : components) {
    if (!c.is_object()) continue;
    if (!out.empty()) out += ", ";
    std::string from = text(c, "from");
    out += text(c, "component") + " " + (from.empty() ? "?" : from) + " -> " + text(c, "to");
  }
  return out;
}

struct WaveCounts {
  std::int64_t total = 0, done = 0, succeeded = 0, running = 0, failed = 0, pending = 0;
};

WaveCounts countsOf(const json& wave) {
  WaveCounts c;
  c.total = number(wave, "total");
  const json& by_state = objectField(wave, "by_state");
  for (const auto& [state, value] : by_state.items()) {
    const std::int64_t n = value.is_number_integer() ? value.get<std::int64_t>() : 0;
    if (state == "pending") {
      c.pending += n;
    } else if (state == "running") {
      c.running += n;
    } else {
      c.done += n;
      if (state == "succeeded") c.succeeded += n;
      if (state == "failed" || state == "rollback_failed" || state == "rolled_back") {
        c.failed += n;
      }
    }
  }
  return c;
}

std::string twoDigits(std::int64_t n) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02lld", static_cast<long long>(n));
  return buf;
}

}  // namespace

std::string formatDuration(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 60) return std::to_string(seconds) + "s";
  const std::int64_t minutes = (seconds + 30) / 60;
  if (minutes < 60) return std::to_string(minutes) + "m";
  if (minutes < 24 * 60) return std::to_string(minutes / 60) + "h " + twoDigits(minutes % 60) + "m";
  const std::int64_t hours = (minutes + 30) / 60;
  return std::to_string(hours / 24) + "d " + twoDigits(hours % 24) + "h";
}

std::string progressBar(std::int64_t done, std::int64_t total, std::size_t width) {
  std::size_t filled = 0;
  if (total > 0 && done > 0) {
    filled = static_cast<std::size_t>((std::min(done, total) * static_cast<std::int64_t>(width)) /
                                      total);
  }
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

void renderPlan(std::ostream& out, const json& plan) {
  out << "Campaign " << text(plan, "campaign_id") << " (" << sanitize(text(plan, "name")) << "), "
      << text(plan, "kind") << ", " << text(plan, "state") << "\n\n";
  Table nodes({"NODE", "SERIAL", "SITE", "RACK", "MODEL", "WAVE", "COMPONENTS", "EST"}, 64);
  for (const auto& n : arrayField(plan, "nodes")) {
    nodes.addRow({text(n, "node_id"), text(n, "serial"), text(n, "site"), text(n, "rack"),
                  text(n, "hardware_model"), text(n, "wave"),
                  componentsText(arrayField(n, "components")),
                  formatDuration(number(n, "estimated_seconds"))});
  }
  nodes.render(out);
  out << "\n";
  Table waves({"WAVE", "NODES", "NODE TIME", "DURATION", "BAKE"});
  for (const auto& w : arrayField(plan, "waves")) {
    waves.addRow({text(w, "wave"), text(w, "nodes"), formatDuration(number(w, "node_seconds")),
                  formatDuration(number(w, "estimated_seconds")),
                  formatDuration(number(w, "bake_seconds"))});
  }
  waves.render(out);
  out << "\nEstimated duration: " << formatDuration(number(plan, "estimated_duration_seconds"))
      << " (bake times included)\n";
}

void renderCampaign(std::ostream& out, const json& c) {
  const json& baseline = objectField(c, "baseline");
  const json& image = objectField(c, "image");
  std::string target = text(c, "kind") == "image"
                           ? text(image, "name") + " " + text(image, "version")
                           : text(baseline, "name") + " revision " + text(baseline, "revision");
  renderFields(out, {{"Campaign", text(c, "id")},
                     {"Name", text(c, "name")},
                     {"Kind", text(c, "kind")},
                     {"Target", target},
                     {"State", text(c, "state")},
                     {"Pause reason", text(c, "pause_reason")},
                     {"Rollback", c.value("rollback_requested", false) ? "requested" : ""},
                     {"Current wave", text(c, "current_wave")},
                     {"Bake until", text(c, "bake_until")},
                     {"Nodes", text(c, "node_count")},
                     {"Created", text(c, "created_at") + " by " + text(c, "created_by")},
                     {"Started", text(c, "started_at")},
                     {"Finished", text(c, "finished_at")}});
  out << "\n";
  Table waves({"WAVE", "TOTAL", "PENDING", "RUNNING", "SUCCEEDED", "FAILED", "DONE"});
  for (const auto& w : arrayField(c, "progress")) {
    WaveCounts n = countsOf(w);
    waves.addRow({text(w, "wave"), std::to_string(n.total), std::to_string(n.pending),
                  std::to_string(n.running), std::to_string(n.succeeded), std::to_string(n.failed),
                  std::to_string(n.done)});
  }
  waves.render(out);
  const json& failures = arrayField(c, "failures");
  if (failures.empty()) return;
  out << "\nFailures:\n";
  Table table({"NODE", "SERIAL", "WAVE", "STATE", "REASON"});
  for (const auto& f : failures) {
    table.addRow({text(f, "node_id"), text(f, "serial"), text(f, "wave"), text(f, "state"),
                  text(f, "reason")});
  }
  table.render(out);
}

void renderWatchFrame(std::ostream& out, const json& c) {
  out << "Campaign " << text(c, "id") << " (" << sanitize(text(c, "name")) << ") "
      << text(c, "state");
  if (text(c, "state") == "running") out << ", wave " << text(c, "current_wave");
  if (c.value("rollback_requested", false)) out << ", rolling back";
  out << "\n";
  if (const std::string why = text(c, "pause_reason"); !why.empty()) {
    out << "Paused: " << sanitize(why) << "\n";
  }
  Table waves({"WAVE", "PROGRESS", "DONE", "RUNNING", "FAILED"});
  for (const auto& w : arrayField(c, "progress")) {
    WaveCounts n = countsOf(w);
    waves.addRow({text(w, "wave"), progressBar(n.done, n.total),
                  std::to_string(n.done) + "/" + std::to_string(n.total), std::to_string(n.running),
                  std::to_string(n.failed)});
  }
  waves.render(out);
}

}  // namespace provisioner::cli
