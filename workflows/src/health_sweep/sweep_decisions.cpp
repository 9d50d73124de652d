// The out-of-band sweep's decisions (workflows/health_sweep.hpp): which silent nodes are due,
// the BMC's readings as a batch, and the flags its words and a silent GPU raise. No I/O.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "workflows/health_sweep.hpp"

namespace workflows::health_sweep {
namespace {

namespace h = inventory::health;
using Json = nlohmann::json;

h::Seconds toSeconds(TimePoint t) {
  return std::chrono::time_point_cast<std::chrono::seconds>(t);
}

bool within(const std::optional<h::Seconds>& at, TimePoint now, Duration window) {
  return at && now - *at < window;
}

// Critical > Warning > OK > not reported, over Health and HealthRollup.
std::string worstHealth(const redfish::HealthStatus& status) {
  for (const char* level : {"Critical", "Warning", "OK"}) {
    if (status.health == level || status.healthRollup == level) return level;
  }
  return "";
}

std::string wordsOf(const redfish::HealthStatus& status) {
  if (status.conditions.empty()) return "no condition given";
  std::string out;
  for (const auto& c : status.conditions) out += (out.empty() ? "" : "; ") + c;
  return out;
}

Json statusJson(const redfish::HealthStatus& status) {
  return {{"health", status.health},
          {"health_rollup", status.healthRollup},
          {"state", status.state},
          {"conditions", status.conditions}};
}

struct DraftSpec {
  const char* rule;
  h::FlagSeverity severity;
  h::FlagAction action;
  const char* source;
};

h::FlagDraft draft(const DraftSpec& spec, std::string serial, std::string reason, Json evidence,
                   std::int64_t node_id, TimePoint at) {
  evidence["rule_source"] = spec.source;
  if (!evidence.contains("source")) evidence["source"] = "bmc";
  h::FlagDraft d;
  d.serial = std::move(serial);
  d.rule = spec.rule;
  d.severity = spec.severity;
  d.action = spec.action;
  d.reason = std::move(reason);
  d.evidence_json = evidence.dump();
  d.raised_at = toSeconds(at);
  d.node_id = node_id;
  return d;
}

constexpr const char* kStatusSource =
    "DMTF Redfish Resource.Status: Health as the BMC reports it, with its Conditions";

void gpuFindings(std::int64_t node_id, const redfish::BmcGpuHealth& gpu, TimePoint at,
                 std::vector<h::FlagDraft>& out) {
  const std::string who = "BMC reports GPU " + gpu.id;
  Json base = {
      {"gpu_id", gpu.id}, {"bmc_resource", gpu.odataId}, {"status", statusJson(gpu.status)}};
  const auto health = worstHealth(gpu.status);
  if (health == "Critical" || health == "Warning") {
    bool critical = health == "Critical";
    DraftSpec spec{"bmc.gpu_health",
                   critical ? h::FlagSeverity::kCritical : h::FlagSeverity::kWarning,
                   critical ? h::FlagAction::kDrain : h::FlagAction::kRerunBurnIn, kStatusSource};
    out.push_back(draft(spec, gpu.serialNumber,
                        who + " health " + health + ": " + wordsOf(gpu.status), base, node_id, at));
  }
  if (gpu.lanesInUse == 0 && gpu.maxLanes.value_or(0) > 0) {
    Json evidence = base;
    evidence["lanes_in_use"] = 0;
    evidence["max_lanes"] = *gpu.maxLanes;
    DraftSpec spec{"bmc.gpu_off_bus", h::FlagSeverity::kCritical, h::FlagAction::kDrain,
                   "NVIDIA XID 79 (GPU has fallen off the bus): a GPU link with 0 lanes in use"};
    out.push_back(draft(spec, gpu.serialNumber,
                        who + " PCIe link at 0 of " + std::to_string(*gpu.maxLanes) +
                            " lanes (Health " + (health.empty() ? "not reported" : health) +
                            "): fallen off the bus",
                        evidence, node_id, at));
  }
  if (gpu.pcieFatal.value_or(0) > 0) {
    Json evidence = base;
    evidence["pcie_fatal_errors"] = *gpu.pcieFatal;
    evidence["pcie_nonfatal_errors"] = gpu.pcieNonFatal ? Json(*gpu.pcieNonFatal) : Json(nullptr);
    evidence["pcie_correctable_errors"] =
        gpu.pcieCorrectable ? Json(*gpu.pcieCorrectable) : Json(nullptr);
    DraftSpec spec{"bmc.pcie_fatal", h::FlagSeverity::kCritical, h::FlagAction::kDrain,
                   "PCI Express Base Specification, Advanced Error Reporting: an uncorrectable "
                   "fatal error leaves the link unreliable until it is reset; NVIDIA XID 79 "
                   "(fallen off the bus) is how it looks from the host"};
    out.push_back(draft(spec, gpu.serialNumber,
                        who + ": " + std::to_string(*gpu.pcieFatal) +
                            " fatal PCIe error(s) (ProcessorMetrics PCIeErrors)",
                        evidence, node_id, at));
  }
  if (gpu.remapFailed == true) {
    DraftSpec spec{"bmc.remap_failure", h::FlagSeverity::kCritical, h::FlagAction::kRmaCandidate,
                   "NVIDIA GPU Memory Error Management, Row Remapping: a remapping failure"};
    out.push_back(draft(spec, gpu.serialNumber, who + " row remapping failed (Oem.Nvidia)", base,
                        node_id, at));
  } else if (gpu.remapPending == true) {
    DraftSpec spec{"bmc.remap_pending", h::FlagSeverity::kWarning, h::FlagAction::kResetAtIdle,
                   "NVIDIA GPU Memory Error Management, Row Remapping: pending until a GPU reset"};
    out.push_back(draft(spec, gpu.serialNumber, who + " row remapping pending (Oem.Nvidia)", base,
                        node_id, at));
  }
}

void psuFindings(std::int64_t node_id, const redfish::BmcPowerSupplyHealth& psu, TimePoint at,
                 std::vector<h::FlagDraft>& out) {
  const auto health = worstHealth(psu.status);
  if (health != "Critical" && health != "Warning") return;
  // Flags are keyed by a component serial; a supply without one by its node and name.
  std::string key = psu.serialNumber.empty() ? "psu:" + std::to_string(node_id) + ":" + psu.name
                                             : psu.serialNumber;
  Json evidence = {{"component", "psu"},
                   {"psu_name", psu.name},
                   {"bmc_resource", psu.odataId},
                   {"status", statusJson(psu.status)}};
  DraftSpec spec{"bmc.psu_health",
                 health == "Critical" ? h::FlagSeverity::kCritical : h::FlagSeverity::kWarning,
                 h::FlagAction::kWatch, kStatusSource};
  out.push_back(draft(
      spec, std::move(key),
      "BMC reports power supply " + psu.name + " health " + health + ": " + wordsOf(psu.status),
      evidence, node_id, at));
}

}  // namespace

std::vector<std::int64_t> silentNodesDue(const std::vector<inventory::HealthSweepNode>& nodes,
                                         TimePoint now, const SweepPolicy& policy,
                                         std::size_t budget) {
  std::vector<const inventory::HealthSweepNode*> due;
  for (const auto& n : nodes) {
    if (within(n.last_reading, now, policy.silence)) continue;  // its agent reports
    if (within(n.attempted_at, now, policy.bmc_min_interval)) continue;
    if (!n.reachable && within(n.attempted_at, now, policy.retry_unreachable)) continue;
    due.push_back(&n);
  }
  // The least recently tried first (never tried before all), so a budget smaller than the
  // silent fleet still reaches every node in turn.
  std::sort(due.begin(), due.end(), [](const auto* a, const auto* b) {
    auto ta = a->attempted_at.value_or(h::Seconds{});
    auto tb = b->attempted_at.value_or(h::Seconds{});
    return ta != tb ? ta < tb : a->node_id < b->node_id;
  });
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < due.size() && i < budget; ++i) out.push_back(due[i]->node_id);
  return out;
}

h::NodeBatch bmcReadings(const redfish::BmcNodeHealth& health, TimePoint now) {
  h::NodeBatch batch;
  batch.sampled_at = toSeconds(now);
  std::map<std::string, bool> seen;
  for (const auto& gpu : health.gpus) {
    if (gpu.serialNumber.empty() || !seen.emplace(gpu.serialNumber, true).second) continue;
    h::GpuSample s;
    s.serial = gpu.serialNumber;
    s.temperature_c = gpu.temperatureC;
    s.hbm_temperature_c = gpu.memoryTemperatureC;
    s.power_w = gpu.powerW;
    auto set = [&](h::Counter c, const std::optional<std::uint64_t>& v) {
      s.counters[static_cast<std::size_t>(c)] = v;
    };
    set(h::Counter::kEccCorrectedAggregate, gpu.eccCorrected);
    set(h::Counter::kEccUncorrectedAggregate, gpu.eccUncorrected);
    set(h::Counter::kRemappedCorrectable, gpu.remappedCorrectable);
    set(h::Counter::kRemappedUncorrectable, gpu.remappedUncorrectable);
    // ProcessorMetrics PCIeErrors.
    set(h::Counter::kPcieReplayErrors, gpu.pcieReplay);
    set(h::Counter::kPcieCorrectableErrors, gpu.pcieCorrectable);
    set(h::Counter::kPcieNonFatalErrors, gpu.pcieNonFatal);
    set(h::Counter::kPcieFatalErrors, gpu.pcieFatal);
    s.remap_pending = gpu.remapPending.value_or(false);
    s.remap_failure = gpu.remapFailed.value_or(false);
    batch.gpus.push_back(std::move(s));
  }
  return batch;
}

std::vector<h::FlagDraft> bmcFindings(std::int64_t node_id, const redfish::BmcNodeHealth& health,
                                      TimePoint evidence_at) {
  std::vector<h::FlagDraft> out;
  for (const auto& gpu : health.gpus) {
    if (!gpu.serialNumber.empty()) gpuFindings(node_id, gpu, evidence_at, out);
  }
  for (const auto& psu : health.powerSupplies) psuFindings(node_id, psu, evidence_at, out);
  return out;
}

std::vector<h::FlagDraft> silentGpuFindings(const std::vector<inventory::PlacedGpuReading>& gpus,
                                            TimePoint now, Duration silence) {
  std::map<std::int64_t, h::Seconds> newest;
  for (const auto& g : gpus) {
    if (!g.last_sample) continue;
    auto [it, inserted] = newest.emplace(g.node_id, *g.last_sample);
    if (!inserted && *g.last_sample > it->second) it->second = *g.last_sample;
  }
  std::vector<h::FlagDraft> out;
  for (const auto& g : gpus) {
    auto node = newest.find(g.node_id);
    if (!g.last_sample || node == newest.end()) continue;
    if (now - node->second >= silence) continue;  // the whole node is silent: the BMC's job
    if (node->second - *g.last_sample < silence) continue;  // it reports with the others
    const auto minutes =
        std::chrono::duration_cast<std::chrono::minutes>(node->second - *g.last_sample).count();
    Json evidence = {{"source", "agent"},
                     {"last_reading", h::formatUtc(*g.last_sample)},
                     {"node_last_reading", h::formatUtc(node->second)},
                     {"silent_minutes", minutes}};
    DraftSpec spec{"silent.gpu", h::FlagSeverity::kCritical, h::FlagAction::kDrain,
                   "the resident monitor leaves out a GPU it cannot read; NVIDIA XID 79 (fallen "
                   "off the bus) looks so from the host"};
    out.push_back(draft(spec, g.serial,
                        "GPU " + g.serial + " has sent no reading for " + std::to_string(minutes) +
                            " min while the other GPUs of node " + std::to_string(g.node_id) +
                            " report",
                        evidence, g.node_id, TimePoint(*g.last_sample)));
  }
  return out;
}

}  // namespace workflows::health_sweep
