#include "inventory/health/events.hpp"

#include <nlohmann/json.hpp>

namespace inventory::health {
namespace {

using nlohmann::json;

std::uint64_t news(const CounterAdvance& a, Counter c) {
  const auto& step = a.steps[static_cast<std::size_t>(c)];
  return step && !step->baseline ? step->increment : 0;
}

void counterEvent(std::vector<EventDraft>& out, const CounterAdvance& a, const char* kind,
                  std::initializer_list<Counter> counters) {
  json detail = json::object();
  bool any = false;
  for (Counter c : counters) {
    const std::uint64_t n = news(a, c);
    if (n == 0) continue;
    any = true;
    detail[std::string(nameOf(c))] = n;
    detail["lifetime_" + std::string(nameOf(c))] = a.state.lifetime[static_cast<std::size_t>(c)];
  }
  if (any) out.push_back({kind, detail.dump()});
}

void threshold(std::vector<EventDraft>& out, const char* signal, bool before, bool now) {
  if (before == now) return;
  out.push_back({now ? "threshold_crossed" : "threshold_cleared", json{{"signal", signal}}.dump()});
}

json baseline(const CounterAdvance& a) {
  json counters = json::object();
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    if (a.steps[i]) counters[std::string(nameOf(counterAt(i)))] = a.steps[i]->increment;
  }
  return counters;
}

json resetCounters(const CounterAdvance& a) {
  json names = json::array();
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    if (a.steps[i] && a.steps[i]->reset) names.push_back(std::string(nameOf(counterAt(i))));
  }
  return names;
}

}  // namespace

std::vector<EventDraft> readingEvents(const GpuSample& sample, const PriorReading& prior,
                                      long long node_id, const CounterAdvance& advance) {
  std::vector<EventDraft> out;
  if (!prior.known) {
    out.push_back(
        {"first_seen", json{{"node_id", node_id}, {"counters", baseline(advance)}}.dump()});
  } else if (prior.node_id != node_id) {
    out.push_back(
        {"gpu_moved", json{{"from_node_id", prior.node_id}, {"to_node_id", node_id}}.dump()});
  }
  if (prior.known && advance.driver_reloaded) {
    out.push_back({"counter_reset", json{{"counters", resetCounters(advance)},
                                         {"previous_epoch", prior.driver_epoch},
                                         {"epoch", sample.driver_epoch},
                                         {"resets", advance.state.resets}}
                                        .dump()});
  }
  const std::uint64_t corrected = newEccErrors(advance, false);
  const std::uint64_t uncorrected = newEccErrors(advance, true);
  if (corrected > 0 || uncorrected > 0) {
    out.push_back(
        {"ecc_errors", json{{"corrected", corrected}, {"uncorrected", uncorrected}}.dump()});
  }
  counterEvent(out, advance, "rows_remapped",
               {Counter::kRemappedCorrectable, Counter::kRemappedUncorrectable});
  counterEvent(out, advance, "pages_retired", {Counter::kRetiredPages});
  threshold(out, "remap_pending", prior.remap_pending, sample.remap_pending);
  threshold(out, "remap_failure", prior.remap_failure, sample.remap_failure);
  return out;
}

}  // namespace inventory::health
