#include "step_metrics.hpp"

#include <algorithm>
#include <cstdio>

namespace workflows::detail {
namespace {

constexpr const char* kDuration = "provisioner_workflow_step_duration_seconds";
constexpr const char* kOutcomes = "provisioner_workflow_step_outcomes_total";
constexpr const char* kFailures = "provisioner_workflow_failures_total";

// Prometheus label values escape backslash, double quote and newline.
std::string escapeLabel(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string stepLabels(const std::string& workflow, const std::string& step) {
  return "workflow=\"" + escapeLabel(workflow) + "\",step=\"" + escapeLabel(step) + "\"";
}

void header(std::string& out, const char* name, const char* type, const char* help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void counter(std::string& out, const char* name, const char* help, std::uint64_t value) {
  header(out, name, "counter", help);
  out.append(name).append(" ").append(std::to_string(value)).append("\n");
}

}  // namespace

void StepMetrics::observeDuration(const std::string& workflow, const std::string& step,
                                  double seconds) {
  seconds = std::max(0.0, seconds);
  const auto bound = std::lower_bound(kBuckets.begin(), kBuckets.end(), seconds);
  const auto index = static_cast<std::size_t>(bound - kBuckets.begin());
  std::lock_guard lock(mutex_);
  Histogram& h = durations_[{workflow, step}];
  ++h.buckets[index];
  h.sum += seconds;
  ++h.count;
}

void StepMetrics::countOutcome(const std::string& workflow, const std::string& step,
                               const std::string& outcome) {
  std::lock_guard lock(mutex_);
  ++outcomes_[{workflow, step, outcome}];
}

void StepMetrics::countFailure(const std::string& workflow, const std::string& step,
                               const std::string& reason) {
  std::lock_guard lock(mutex_);
  ++failures_[{workflow, step, reason}];
}

void StepMetrics::render(std::string& out, const EngineStats& stats) const {
  std::lock_guard lock(mutex_);
  header(out, kDuration, "histogram",
         "Time a workflow run spent in a step, from entering it to leaving it.");
  for (const auto& [key, h] : durations_) {
    const std::string labels = stepLabels(key.first, key.second);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      const std::string le = i < kBuckets.size() ? number(kBuckets[i]) : "+Inf";
      out.append(kDuration).append("_bucket{").append(labels).append(",le=\"").append(le);
      out.append("\"} ").append(std::to_string(cumulative)).append("\n");
    }
    out.append(kDuration).append("_sum{").append(labels).append("} ").append(number(h.sum));
    out.append("\n").append(kDuration).append("_count{").append(labels).append("} ");
    out.append(std::to_string(h.count)).append("\n");
  }
  header(out, kOutcomes, "counter", "Workflow step executions by outcome.");
  for (const auto& [key, n] : outcomes_) {
    out.append(kOutcomes).append("{").append(stepLabels(std::get<0>(key), std::get<1>(key)));
    out.append(",outcome=\"").append(escapeLabel(std::get<2>(key))).append("\"} ");
    out.append(std::to_string(n)).append("\n");
  }
  header(out, kFailures, "counter", "Workflow step failures by reason.");
  for (const auto& [key, n] : failures_) {
    out.append(kFailures).append("{").append(stepLabels(std::get<0>(key), std::get<1>(key)));
    out.append(",reason=\"").append(escapeLabel(std::get<2>(key))).append("\"} ");
    out.append(std::to_string(n)).append("\n");
  }
  counter(out, "provisioner_workflow_steps_executed_total", "Workflow steps executed.",
          stats.steps_executed);
  counter(out, "provisioner_workflow_outcomes_lost_total",
          "Step outcomes refused because the run's lease had moved on.", stats.outcomes_lost);
  counter(out, "provisioner_workflow_claim_round_trips_total",
          "Round trips claiming due workflow runs.", stats.claim_round_trips);
  counter(out, "provisioner_workflow_runs_claimed_total", "Workflow runs claimed.", stats.claimed);
  counter(out, "provisioner_workflow_lease_renewals_total",
          "Leases of executing steps extended (heartbeat, fence, recorded intent).",
          stats.lease_renewals);
  counter(out, "provisioner_workflow_lease_renewal_round_trips_total",
          "Heartbeat round trips renewing the leases of executing steps.",
          stats.renewal_round_trips);
  counter(out, "provisioner_workflow_fenced_total",
          "Step executions that found their lease lost before writing their outcome.",
          stats.fenced);
  counter(out, "provisioner_workflow_intents_recorded_total",
          "Intents of dangerous actions written to the run, fenced by the lease.",
          stats.intents_recorded);
}

}  // namespace workflows::detail
