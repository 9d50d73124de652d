#include "workflows/campaign/spec.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "spec_reader.hpp"
#include "workflows/campaign/windows.hpp"

namespace workflows::campaign {
namespace {

using nlohmann::json;

const std::set<std::string> kTopLevel = {
    "name",  "kind", "baseline",       "image",   "selector", "canary",      "bake_seconds",
    "waves", "caps", "failure_budget", "windows", "gate",     "quick_check", "description"};

common::Result<Selector> readSelector(const Reader& r) {
  Selector s;
  if (!r.has("selector")) return r.error("selector", "is required: say which nodes");
  const json& j = r.at("selector");
  if (!j.is_object()) return r.error("selector", "must be an object");
  Reader sel(j, "selector");
  PROV_TRY(sel.onlyKeys(
      {"all", "site", "rack", "racks", "model", "state", "states", "labels", "nodes"}));
  PROV_ASSIGN(s.all, sel.boolean("all", false));
  PROV_ASSIGN(s.site, sel.text("site", ""));
  PROV_ASSIGN(s.racks, sel.texts(j.contains("racks") ? "racks" : "rack"));
  PROV_ASSIGN(s.model, sel.text("model", ""));
  PROV_ASSIGN(s.states, sel.texts(j.contains("states") ? "states" : "state"));
  PROV_ASSIGN(s.labels, sel.textMap("labels"));
  PROV_ASSIGN(s.nodes, sel.ids("nodes"));
  const bool some = !s.site.empty() || !s.racks.empty() || !s.model.empty() || !s.states.empty() ||
                    !s.labels.empty() || !s.nodes.empty();
  if (!some && !s.all) {
    return r.error("selector",
                   "names no criterion: give site, rack, model, state, labels or "
                   "nodes, or {\"all\": true}");
  }
  if (s.states.empty()) s.states = {"ready"};
  return s;
}

common::Result<Canary> readCanary(const Reader& r) {
  Canary c;
  if (!r.has("canary")) {
    c.count = 1;
    return c;
  }
  const json& j = r.at("canary");
  if (!j.is_object()) return r.error("canary", "must be {\"count\": N} or {\"percent\": P}");
  Reader can(j, "canary");
  PROV_TRY(can.onlyKeys({"count", "percent"}));
  if (j.contains("count") == j.contains("percent")) {
    return r.error("canary", "must have exactly one of count and percent");
  }
  if (j.contains("count")) {
    PROV_ASSIGN(auto n, can.integer("count", 1, 1, 1000000));
    c.count = static_cast<int>(n);
  } else {
    PROV_ASSIGN(c.percent, can.number("percent", 0, 0, 100, true));
  }
  return c;
}

common::Result<std::vector<WaveSize>> readWaves(const Reader& r) {
  std::vector<WaveSize> waves;
  if (!r.has("waves")) return std::vector<WaveSize>{WaveSize{0, true}};
  const json& j = r.at("waves");
  if (!j.is_array() || j.empty()) return r.error("waves", "must be a non-empty list");
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string path = "waves[" + std::to_string(i) + "]";
    WaveSize w;
    if (j[i].is_string() && j[i].get<std::string>() == "rest") {
      if (i + 1 != j.size()) return r.errorAt(path, "\"rest\" may only be the last wave");
      w.rest = true;
    } else if (j[i].is_number()) {
      w.percent = j[i].get<double>();
      if (!(w.percent > 0 && w.percent <= 100) || !std::isfinite(w.percent)) {
        return r.errorAt(path, "must be a percentage above 0 and at most 100");
      }
    } else {
      return r.errorAt(path, "must be a percentage or \"rest\"");
    }
    waves.push_back(w);
  }
  return waves;
}

common::Result<Caps> readCaps(const Reader& r) {
  Caps caps;
  if (!r.has("caps")) return r.error("caps", "are required: say how many nodes may update at once");
  const json& j = r.at("caps");
  if (!j.is_object()) return r.error("caps", "must be an object");
  Reader c(j, "caps");
  PROV_TRY(c.onlyKeys({"global", "per_rack", "per_label"}));
  if (!j.contains("global")) return c.error("global", "is required");
  PROV_ASSIGN(auto global, c.integer("global", 0, 1, 1000000));
  caps.global = static_cast<int>(global);
  if (j.contains("per_rack")) {
    PROV_ASSIGN(auto per_rack, c.integer("per_rack", 0, 1, 1000000));
    caps.per_rack = static_cast<int>(per_rack);
  }
  if (j.contains("per_label")) {
    const json& labels = j["per_label"];
    if (!labels.is_object()) return c.error("per_label", "must map label keys to caps");
    Reader l(labels, "caps.per_label");
    for (const auto& [key, value] : labels.items()) {
      (void)value;
      PROV_ASSIGN(auto n, l.integer(key, 0, 1, 1000000));
      caps.per_label[key] = static_cast<int>(n);
    }
  }
  return caps;
}

common::Result<FailureBudget> readBudget(const Reader& r) {
  FailureBudget b;
  if (!r.has("failure_budget")) {
    b.count = 0;  // the first failure pauses
    return b;
  }
  const json& j = r.at("failure_budget");
  if (!j.is_object()) return r.error("failure_budget", "must be an object");
  Reader f(j, "failure_budget");
  PROV_TRY(f.onlyKeys({"count", "percent"}));
  if (!j.contains("count") && !j.contains("percent")) {
    return r.error("failure_budget", "needs count, percent or both");
  }
  if (j.contains("count")) {
    PROV_ASSIGN(auto n, f.integer("count", 0, 0, 1000000));
    b.count = static_cast<int>(n);
  }
  if (j.contains("percent")) {
    PROV_ASSIGN(auto p, f.number("percent", 0, 0, 100, false));
    b.percent = p;
  }
  return b;
}

common::Result<int> readDay(const json& day, const std::string& path, const Reader& r) {
  static const char* kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  if (day.is_string()) {
    for (int i = 0; i < 7; ++i) {
      if (day.get<std::string>() == kDays[i]) return i;
    }
  }
  return r.errorAt(path, "must be one of sun, mon, tue, wed, thu, fri, sat");
}

// "HH:MM" from 00:00 to 23:59, and 24:00 for an end at midnight.
common::Result<int> readClock(const Reader& r, const std::string& key, bool is_end) {
  if (!r.has(key)) return r.error(key, "is required (HH:MM)");
  PROV_ASSIGN(auto text, r.text(key, ""));
  const auto digit = [&text](std::size_t i) { return text[i] >= '0' && text[i] <= '9'; };
  if (text.size() != 5 || !digit(0) || !digit(1) || text[2] != ':' || !digit(3) || !digit(4)) {
    return r.error(key, "must be HH:MM, not \"" + text + "\"");
  }
  const int h = (text[0] - '0') * 10 + (text[1] - '0');
  const int m = (text[3] - '0') * 10 + (text[4] - '0');
  const bool midnight_end = is_end && h == 24 && m == 0;
  if ((h > 23 || m > 59) && !midnight_end) {
    return r.error(key, std::string("must be a time of day from 00:00 to ") +
                            (is_end ? "24:00" : "23:59") + ", not " + text);
  }
  return h * 60 + m;
}

common::Result<std::vector<Window>> readWindows(const Reader& r) {
  std::vector<Window> windows;
  if (!r.has("windows")) return windows;
  const json& j = r.at("windows");
  if (!j.is_array()) return r.error("windows", "must be a list");
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string path = "windows[" + std::to_string(i) + "]";
    if (!j[i].is_object()) return r.errorAt(path, "must be an object");
    Reader w(j[i], path);
    PROV_TRY(w.onlyKeys({"days", "start", "end", "time_zone"}));
    Window win;
    if (!j[i].contains("days") || !j[i]["days"].is_array() || j[i]["days"].empty()) {
      return w.error("days", "must be a non-empty list of days");
    }
    for (std::size_t d = 0; d < j[i]["days"].size(); ++d) {
      const std::string day_path = path + ".days[" + std::to_string(d) + "]";
      PROV_ASSIGN(auto day, readDay(j[i]["days"][d], day_path, r));
      if (std::find(win.days.begin(), win.days.end(), day) != win.days.end()) {
        return r.errorAt(day_path, "names a day twice");
      }
      win.days.push_back(day);
    }
    PROV_ASSIGN(win.start_minute, readClock(w, "start", false));
    PROV_ASSIGN(win.end_minute, readClock(w, "end", true));
    if (win.start_minute == win.end_minute) return w.error("end", "must differ from start");
    if (!w.has("time_zone"))
      return w.error("time_zone", "is required (an IANA name: Europe/Berlin)");
    PROV_ASSIGN(win.time_zone, w.text("time_zone", ""));
    if (!knownTimeZone(win.time_zone)) {
      return w.error("time_zone", "is not a known time zone: " + win.time_zone);
    }
    windows.push_back(std::move(win));
  }
  if (auto second = overlappingWindow(windows)) {
    return r.errorAt("windows[" + std::to_string(*second) + "]",
                     "overlaps an earlier window of the campaign");
  }
  return windows;
}

common::Result<Gate> readGate(const Reader& r) {
  Gate g;
  if (!r.has("gate")) return g;
  const json& j = r.at("gate");
  if (!j.is_object()) return r.error("gate", "must be an object");
  Reader gate(j, "gate");
  PROV_TRY(gate.onlyKeys({"max_regression_percent", "metrics"}));
  PROV_ASSIGN(g.max_regression_percent, gate.number("max_regression_percent", 3.0, 0, 100, true));
  PROV_ASSIGN(g.metrics, gate.texts("metrics"));
  return g;
}

common::Result<void> readTarget(const Reader& r, CampaignSpec& s) {
  const char* other = s.kind == "firmware" ? "image" : "baseline";
  if (r.has(other)) return r.error(other, "does not belong in a " + s.kind + " campaign");
  if (s.kind == "firmware") {
    if (!r.has("baseline")) return r.error("baseline", "is required for a firmware campaign");
    const json& b = r.at("baseline");
    if (b.is_string()) {
      s.baseline_name = b.get<std::string>();
    } else if (b.is_object()) {
      Reader base(b, "baseline");
      PROV_TRY(base.onlyKeys({"name", "revision"}));
      PROV_ASSIGN(s.baseline_name, base.text("name", ""));
      if (b.contains("revision")) {
        PROV_ASSIGN(auto rev, base.integer("revision", 0, 1, 1000000000));
        s.baseline_revision = static_cast<int>(rev);
      }
    } else {
      return r.error("baseline", "must be a name or {\"name\", \"revision\"}");
    }
    if (s.baseline_name.empty()) return r.errorAt("baseline.name", "is required");
    return common::success();
  }
  if (!r.has("image") || !r.at("image").is_object()) {
    return r.error("image", "is required for an image campaign: {\"name\", \"version\"}");
  }
  Reader image(r.at("image"), "image");
  PROV_TRY(image.onlyKeys({"name", "version", "channel"}));
  PROV_ASSIGN(s.image_name, image.text("name", ""));
  PROV_ASSIGN(s.image_version, image.text("version", ""));
  PROV_ASSIGN(s.image_channel, image.text("channel", ""));
  if (s.image_name.empty()) return image.error("name", "is required");
  if (s.image_version.empty() && s.image_channel.empty()) {
    return r.error("image", "needs a version or a channel");
  }
  return common::success();
}

}  // namespace

common::Result<CampaignSpec> parseCampaignSpec(const json& body) {
  if (!body.is_object()) {
    return common::fail(common::invalidArgument("invalid_campaign", "a campaign is a JSON object"));
  }
  Reader r(body, "");
  PROV_TRY(r.onlyKeys(kTopLevel));
  CampaignSpec s;
  PROV_ASSIGN(s.name, r.text("name", ""));
  PROV_ASSIGN(s.description, r.text("description", ""));
  if (!r.has("kind")) return r.error("kind", "is required: firmware or image");
  PROV_ASSIGN(s.kind, r.text("kind", ""));
  if (s.kind != "firmware" && s.kind != "image") {
    return r.error("kind", "must be firmware or image");
  }
  PROV_TRY(readTarget(r, s));
  PROV_ASSIGN(s.selector, readSelector(r));
  PROV_ASSIGN(s.canary, readCanary(r));
  PROV_ASSIGN(auto bake, r.integer("bake_seconds", 0, 0, std::int64_t{30} * 86400));
  s.bake_seconds = static_cast<int>(bake);
  PROV_ASSIGN(s.waves, readWaves(r));
  PROV_ASSIGN(s.caps, readCaps(r));
  PROV_ASSIGN(s.failure_budget, readBudget(r));
  PROV_ASSIGN(s.windows, readWindows(r));
  PROV_ASSIGN(s.quick_check, r.boolean("quick_check", true));
  PROV_ASSIGN(s.gate, readGate(r));
  return s;
}

}  // namespace workflows::campaign
