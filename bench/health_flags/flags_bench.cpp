// Recall of the health rules (docs/benchmarks.md, "Health flags"): a simulated fleet of GPUs over
// simulated days, some degrading towards an injected failure, the rest healthy with noise. Each
// simulated day ends with the daily aggregates the roll-ups produce (hourly Stats merged into a
// day, exactly as gpu_health_daily is built), and the same pure rule code the service runs
// (inventory::health::evaluateGpu, evaluatePeerGroup, defaultPolicy) is fed day by day. A flag
// stays open once raised (nobody clears it here), as the flag store keeps one per GPU and rule.
//
// Reported for the static rules, the learned-normal rules (evaluateLearnedNormal over each node)
// and both together: recall (degrading GPUs flagged at least 24 h before their failure), median
// lead time, false flags per 10,000 GPU-days (flags on healthy GPUs, or on degrading ones before
// their degradation began) and precision at a base rate of 3 failures per 10,000 GPU-days, per
// failure mode; first and false flags per rule. Everything is simulated: the generator's
// shapes are assumptions written down in docs/benchmarks.md, not measurements of real GPUs.
//
// Usage: health-flags-bench [--gpus 10000] [--days 30] [--seed N] [--degrading-fraction 0.01]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "inventory/health/learned_normal.hpp"
#include "inventory/health/rules.hpp"

namespace h = inventory::health;
using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

namespace {

constexpr int kPeerDays = 30;

enum class Mode { kHealthy, kEcc, kTemperature, kXids, kSlowdown };
const char* modeName(Mode m) {
  switch (m) {
    case Mode::kHealthy:
      return "healthy";
    case Mode::kEcc:
      return "ecc_growth";
    case Mode::kTemperature:
      return "temperature_creep";
    case Mode::kXids:
      return "intermittent_xids";
    case Mode::kSlowdown:
      return "slowing_down";
  }
  return "";
}

struct Model {
  const char* name;
  double temp_busy;  // C at full load, typical
  double clock;      // MHz under load
  double power;      // W at full load
};
constexpr Model kModels[] = {{"H100", 66, 1755, 620}, {"A100", 60, 1410, 360}};

struct Gpu {
  std::string serial;
  int node = 0;
  int rack = 0;
  int model = 0;
  double temp_offset = 0;   // this GPU's position / paste / fan (constant)
  double power_factor = 1;  // silicon lottery
  double clock_factor = 1;
  double ecc_background = 0;  // correctable errors a day (most GPUs 0)
  Mode mode = Mode::kHealthy;
  int onset_day = 0;  // degradation starts (00:00 of that day)
  int fail_day = 0;   // failure during that day
  h::Seconds fail_at{};
  double severity = 0;  // mode-specific final magnitude
  double xid_rate = 0;  // kXids: chance of a burst per day
  bool failed = false;
  // What the store would hold.
  std::vector<h::DayAggregate> days;
  std::vector<h::XidBurst> bursts;
  std::vector<h::RemapSeen> remaps;
  std::vector<h::PastFlag> flags;
  std::set<std::string> open_rules;
  bool remap_pending = false;
  // Results: the first flag after onset (detection) by the static rules and by the
  // learned-normal detector.
  std::optional<h::Seconds> first_flag[2];
};

// The two detectors compared: the static rules and the learned-normal one.
enum System { kRules = 0, kLearned = 1, kBoth = 2 };
const char* const kSystemNames[] = {"rules", "learned normal", "both (the policy)"};

struct Args {
  int gpus = 10000;
  int days = 30;
  unsigned long long seed = 1;
  double degrading = 0.01;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--gpus")
      a.gpus = std::atoi(argv[i + 1]);
    else if (k == "--days")
      a.days = std::atoi(argv[i + 1]);
    else if (k == "--seed")
      a.seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (k == "--degrading-fraction")
      a.degrading = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

class Sim {
 public:
  explicit Sim(const Args& a) : args_(a), rng_(a.seed) {}

  void build() {
    const int per_node = 8, nodes_per_rack = 4;
    const int n_nodes = (args_.gpus + per_node - 1) / per_node;
    node_offset_.resize(n_nodes);
    for (auto& o : node_offset_) o = normal(0, 1.5);
    const int n_racks = (n_nodes + nodes_per_rack - 1) / nodes_per_rack;
    rack_ambient_.resize(n_racks);
    for (auto& a : rack_ambient_) a = normal(24, 1.5);
    node_idle_.assign(n_nodes, false);
    for (int i = 0; i < args_.gpus; ++i) {
      Gpu g;
      char buf[32];
      std::snprintf(buf, sizeof buf, "GPU-%05d", i);
      g.serial = buf;
      g.node = i / per_node;
      g.rack = g.node / nodes_per_rack;
      g.model = g.rack % 2;
      g.temp_offset = normal(0, 2.0);
      g.power_factor = 1 + normal(0, 0.03);
      g.clock_factor = 1 + normal(0, 0.004);
      if (uniform() < 0.03) g.ecc_background = std::exp(uniform(std::log(0.1), std::log(3.0)));
      gpus_.push_back(std::move(g));
    }
    // Degrading GPUs: a failure day late enough to leave room for a lead, a degradation of
    // 4 to 14 days before it, a magnitude drawn from a range that includes subtle cases.
    const int n_bad = static_cast<int>(std::lround(args_.degrading * args_.gpus));
    std::vector<int> idx(args_.gpus);
    for (int i = 0; i < args_.gpus; ++i) idx[i] = i;
    std::shuffle(idx.begin(), idx.end(), rng_);
    for (int k = 0; k < n_bad; ++k) {
      Gpu& g = gpus_[idx[k]];
      g.mode = static_cast<Mode>(1 + k % 4);
      g.fail_day = static_cast<int>(uniform(8, args_.days));
      const int d = static_cast<int>(uniform(4, 15));
      g.onset_day = std::max(0, g.fail_day - d);
      g.fail_at = dayStart(g.fail_day) + seconds{static_cast<long long>(uniform(0, 86400))};
      switch (g.mode) {
        case Mode::kEcc:
          g.severity =
              std::exp(uniform(std::log(30.0), std::log(5000.0)));  // errors/day at the end
          break;
        case Mode::kTemperature:
          g.severity = uniform(4, 15);  // C above its usual at the failure
          break;
        case Mode::kXids:
          g.xid_rate = uniform(0.1, 0.5);
          break;
        case Mode::kSlowdown:
          g.severity = uniform(0.02, 0.15);  // clock lost at the failure
          break;
        case Mode::kHealthy:
          break;
      }
    }
  }

  void run() {
    const h::Policy& policy = h::defaultPolicy();
    for (int day = 0; day < args_.days; ++day) {
      simulateDay(day);
      const h::Seconds now = h::endOf(h::Days{start_} + days{day}) + minutes{10};
      for (auto& g : gpus_) {
        if (g.failed && g.fail_day < day) continue;  // drained, out of service
        h::GpuEvidence e;
        e.serial = g.serial;
        e.now = now;
        const std::size_t from = g.days.size() > 30 ? g.days.size() - 30 : 0;
        e.days.assign(g.days.begin() + static_cast<std::ptrdiff_t>(from), g.days.end());
        e.counters = h::CounterSnapshot{now - minutes{10}, g.remap_pending, false};
        e.xid_bursts = g.bursts;
        e.remaps = g.remaps;
        e.past_flags = g.flags;
        record(g, h::evaluateGpu(policy, e), now);
      }
      evaluatePeers(policy, day, now);
      evaluateNodes(policy, day, now);
    }
  }

  // The result of one detector (or of both: the earlier first flag).
  struct Outcome {
    struct PerMode {
      int n = 0, detected24 = 0, detected_any = 0;
      std::vector<double> leads;
    };
    std::map<std::string, PerMode> modes;
    std::vector<double> leads;
    int bad = 0, detected = 0, false_flags = 0;
  };

  Outcome outcomeOf(int system) const {
    Outcome o;
    for (const auto& g : gpus_) {
      if (g.mode == Mode::kHealthy) continue;
      ++o.bad;
      auto& m = o.modes[modeName(g.mode)];
      ++m.n;
      std::optional<h::Seconds> first =
          system == kBoth ? g.first_flag[kRules] : g.first_flag[system];
      if (system == kBoth && g.first_flag[kLearned] &&
          (!first || *g.first_flag[kLearned] < *first)) {
        first = g.first_flag[kLearned];
      }
      if (!first) continue;
      const double lead =
          std::chrono::duration<double, std::ratio<3600>>(g.fail_at - *first).count();
      if (lead > 0) ++m.detected_any;
      if (lead >= 24) {
        ++m.detected24;
        ++o.detected;
        m.leads.push_back(lead);
        o.leads.push_back(lead);
      }
    }
    o.false_flags =
        system == kBoth ? false_flags_[kRules] + false_flags_[kLearned] : false_flags_[system];
    return o;
  }

  void report() const {
    const double gpu_days = static_cast<double>(gpu_days_);
    std::printf("seed %llu: %d GPUs x %d days (%lld GPU-days), %d degrading\n", args_.seed,
                args_.gpus, args_.days, gpu_days_, outcomeOf(0).bad);
    for (int system : {kRules, kLearned, kBoth}) {
      const Outcome o = outcomeOf(system);
      // Precision at the fleet's base rate: of the flags on degrading GPUs and the false ones,
      // scaled to ~3 failures per 10,000 GPU-days (the simulation injects 100 in ~300,000).
      const double failures_per_10k = o.bad / gpu_days * 10000;
      const double true_per_10k = o.bad ? 3.0 * o.detected / o.bad : 0;
      const double false_per_10k = o.false_flags / gpu_days * 10000;
      std::printf("\n== %s\n", kSystemNames[system]);
      std::printf("recall (flagged >= 24 h before failure): %d / %d = %.1f%%\n", o.detected, o.bad,
                  o.bad ? 100.0 * o.detected / o.bad : 0.0);
      std::printf("median lead time of those: %.1f h\n", medianOf(o.leads));
      std::printf("false flags: %d = %.2f per 10,000 GPU-days\n", o.false_flags, false_per_10k);
      std::printf("precision at 3 failures per 10,000 GPU-days: %.0f%% (simulated rate %.2f)\n",
                  true_per_10k + false_per_10k > 0
                      ? 100 * true_per_10k / (true_per_10k + false_per_10k)
                      : 0.0,
                  failures_per_10k);
      std::printf("%-20s %5s %12s %12s %14s\n", "mode", "GPUs", "flagged>=24h", "flagged>0h",
                  "median lead h");
      for (const auto& [name, m] : o.modes) {
        std::printf("%-20s %5d %12d %12d %14.1f\n", name.c_str(), m.n, m.detected24, m.detected_any,
                    medianOf(m.leads));
      }
    }
    std::printf("\n%-22s %14s %12s\n", "rule", "first flags", "false flags");
    std::set<std::string> rules;
    for (const auto& [r, n] : first_by_rule_) rules.insert(r);
    for (const auto& [r, n] : false_by_rule_) rules.insert(r);
    for (const auto& r : rules) {
      auto f = first_by_rule_.find(r);
      auto x = false_by_rule_.find(r);
      std::printf("%-22s %14d %12d\n", r.c_str(), f == first_by_rule_.end() ? 0 : f->second,
                  x == false_by_rule_.end() ? 0 : x->second);
    }
  }

 private:
  double uniform(double lo = 0, double hi = 1) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  double normal(double mean, double sd) { return std::normal_distribution<double>(mean, sd)(rng_); }
  long long poisson(double mean) {
    if (mean <= 0) return 0;
    return std::poisson_distribution<long long>(mean)(rng_);
  }
  h::Seconds dayStart(int day) const { return h::Seconds{h::Days{start_} + days{day}}; }

  static double medianOf(std::vector<double> v) {
    if (v.empty()) return 0;
    return h::median(std::move(v));
  }

  // How far into its degradation a GPU is on `day` (0 before onset, 1 at the failure).
  static double progress(const Gpu& g, int day) {
    if (g.mode == Mode::kHealthy || day < g.onset_day) return 0;
    const double span = std::max(1, g.fail_day - g.onset_day);
    return std::min(1.0, (day - g.onset_day + 0.5) / span);
  }

  void addBurst(Gpu& g, int xid, h::Seconds at, long long count) {
    g.bursts.push_back({std::nullopt, xid, at, at + minutes{std::min<long long>(count, 4)}, count});
  }

  void simulateDay(int day) {
    // Node load: busy most days; some nodes idle (no job, drained for maintenance) for a few days
    // in a row; a few nodes post nothing that day (down).
    std::vector<double> load(node_offset_.size());
    std::vector<bool> down(node_offset_.size());
    for (std::size_t n = 0; n < load.size(); ++n) {
      node_idle_[n] = node_idle_[n] ? uniform() < 0.6 : uniform() < 0.04;
      load[n] = node_idle_[n] ? uniform(0.05, 0.2) : std::clamp(normal(0.85, 0.08), 0.4, 1.0);
      down[n] = uniform() < 0.01;
      // A job crash takes down the node's GPUs with application XIDs (13, 31, 43).
      if (!down[n] && !node_idle_[n] && uniform() < 0.03) crash_nodes_.insert(static_cast<int>(n));
    }
    for (auto& g : gpus_) {
      if (g.failed) continue;
      if (down[g.node]) continue;
      ++gpu_days_;
      const Model& m = kModels[g.model];
      const double p = progress(g, day);
      const double L = load[g.node];
      double temp = rack_ambient_[g.rack] + (m.temp_busy - 24) * L + g.temp_offset +
                    node_offset_[g.node] + normal(0, 0.8);
      double clock = node_idle_[g.node] ? 345 + normal(0, 20)
                                        : m.clock * g.clock_factor * (1 + normal(0, 0.003));
      double power = m.power * (0.15 + 0.85 * L) * g.power_factor * (1 + normal(0, 0.01));
      long long ecc = poisson(g.ecc_background);
      if (uniform() < 0.001)
        ecc += static_cast<long long>(std::exp(uniform(std::log(10.0), std::log(5000.0))));
      const h::Seconds t0 = dayStart(day);
      switch (g.mode) {
        case Mode::kEcc:
          if (p > 0) ecc += poisson(std::pow(g.severity, p));
          if (p > 0 && uniform() < 0.15) {  // the failing HBM remaps a row now and then
            g.remaps.push_back({t0 + hours{static_cast<int>(uniform(0, 23))}, 1});
            g.remap_pending = true;
          }
          break;
        case Mode::kTemperature:
          temp += g.severity * p;
          if (temp > 85) clock *= 1 - 0.01 * (temp - 85);  // thermal slowdown
          break;
        case Mode::kXids:
          if (p > 0 && uniform() < g.xid_rate) {
            static constexpr int kHardware[] = {74, 119, 92, 62};
            addBurst(g, kHardware[static_cast<int>(uniform(0, 4))],
                     t0 + hours{static_cast<int>(uniform(0, 23))}, 1 + poisson(3));
          }
          break;
        case Mode::kSlowdown:
          clock *= 1 - g.severity * p;
          power *= 1 - g.severity * p / 2;
          break;
        case Mode::kHealthy:
          break;
      }
      // Healthy noise that is not a failure: a one-off hardware XID, job crashes.
      if (uniform() < 0.0005) addBurst(g, uniform() < 0.5 ? 74 : 119, t0 + hours{7}, 1);
      if (crash_nodes_.contains(g.node)) {
        static constexpr int kApp[] = {13, 31, 43};
        addBurst(g, kApp[static_cast<int>(uniform(0, 3))], t0 + hours{15}, 1 + poisson(2));
      }
      h::DayAggregate d = dayOf(t0, temp, clock, power, ecc);
      if (g.mode != Mode::kHealthy && day == g.fail_day) {
        // The failure: an uncorrectable error (XID 48) for the ECC GPU, the GPU falling off
        // the bus (XID 79) for the others. It stops reporting after that.
        if (g.mode == Mode::kEcc) {
          d.ecc_uncorrected = 1;
          addBurst(g, 48, g.fail_at, 1);
        } else {
          addBurst(g, 79, g.fail_at, 1);
        }
        d.xids += 1;
        g.failed = true;
      }
      // A pending remap is applied by a reset within a day or so.
      if (g.remap_pending && uniform() < 0.5) g.remap_pending = false;
      g.days.push_back(d);
    }
    crash_nodes_.clear();
  }

  // The day as the roll-up builds it: 24 hourly Stats of 120 readings each, merged.
  h::DayAggregate dayOf(h::Seconds t0, double temp, double clock, double power, long long ecc) {
    h::DayAggregate d;
    d.day = h::dayOf(t0);
    for (int hour = 0; hour < 24; ++hour) {
      h::Stat t, c, p;
      const double th = temp + normal(0, 0.5), ch = clock * (1 + normal(0, 0.002)),
                   ph = power * (1 + normal(0, 0.01));
      t.count = c.count = p.count = 120;
      t.sum = th * 120;
      t.min = th - 2;
      t.max = th + 2;
      c.sum = ch * 120;
      c.min = ch * 0.97;
      c.max = ch * 1.01;
      p.sum = ph * 120;
      p.min = ph * 0.9;
      p.max = ph * 1.1;
      d.temperature_c.merge(t);
      d.sm_clock_mhz.merge(c);
      d.power_w.merge(p);
      d.samples += 120;
    }
    d.ecc_corrected = ecc;
    return d;
  }

  void evaluatePeers(const h::Policy& policy, int day, h::Seconds now) {
    // Peer groups: (rack, model) over the last 30 days, from each GPU's daily means (as
    // loadFlagEvaluationInput reads them).
    std::map<int, h::PeerGroup> groups;
    std::map<std::string, Gpu*> by_serial;
    for (auto& g : gpus_) {
      if (g.failed && g.fail_day < day) continue;
      by_serial[g.serial] = &g;
      auto& group = groups[g.rack];
      if (group.days.empty()) {
        group.label = "rack " + std::to_string(g.rack) + ", " + kModels[g.model].name;
        for (int i = std::min(day, kPeerDays - 1); i >= 0; --i) {
          group.days.push_back({h::Days{start_} + days{day - i}, {}});
        }
      }
      for (const auto& d : g.days) {
        const auto offset = (h::Days{start_} + days{day} - d.day).count();
        const auto slots = static_cast<long>(group.days.size());
        if (offset < 0 || offset >= slots) continue;
        group.days[static_cast<std::size_t>(slots - 1 - offset)].gpus.push_back(
            {g.serial, d.samples, d.temperature_c.avg(), d.sm_clock_mhz.avg(), d.power_w.avg()});
      }
    }
    for (const auto& [rack, group] : groups) {
      std::vector<h::FlagDraft> drafts = h::evaluatePeerGroup(policy, group);
      std::map<std::string, std::vector<h::FlagDraft>> per_gpu;
      for (auto& d : drafts) per_gpu[d.serial].push_back(std::move(d));
      for (auto& [serial, ds] : per_gpu) record(*by_serial.at(serial), ds, now);
    }
  }

  // The learned-normal detector over each node's GPUs (their last 30 days), as the flag
  // evaluation groups them by the node they are in.
  void evaluateNodes(const h::Policy& policy, int day, h::Seconds now) {
    std::map<int, std::vector<Gpu*>> nodes;
    for (auto& g : gpus_) {
      if (g.failed && g.fail_day < day) continue;
      nodes[g.node].push_back(&g);
    }
    for (const auto& [node, members] : nodes) {
      h::NodeHistory history;
      history.label = "node " + std::to_string(node);
      std::map<std::string, Gpu*> by_serial;
      for (Gpu* g : members) {
        const std::size_t from = g->days.size() > 30 ? g->days.size() - 30 : 0;
        history.gpus.push_back(
            {g->serial, std::span<const h::DayAggregate>(g->days).subspan(from)});
        by_serial[g->serial] = g;
      }
      std::map<std::string, std::vector<h::FlagDraft>> per_gpu;
      for (auto& d : h::evaluateLearnedNormal(policy, history)) {
        per_gpu[d.serial].push_back(std::move(d));
      }
      for (auto& [serial, ds] : per_gpu) record(*by_serial.at(serial), ds, now);
    }
  }

  // The flag store's rule: one open flag per GPU and rule; never cleared here.
  void record(Gpu& g, const std::vector<h::FlagDraft>& drafts, h::Seconds now) {
    for (const auto& d : drafts) {
      if (!g.open_rules.insert(d.rule).second) continue;
      g.flags.push_back({d.rule, d.raised_at});
      const int system = d.rule.starts_with("learned.") ? kLearned : kRules;
      const bool degrading = g.mode != Mode::kHealthy && now >= dayStart(g.onset_day);
      if (!degrading) {
        ++false_flags_[system];
        ++false_by_rule_[d.rule];
        continue;
      }
      if (!g.first_flag[system]) {
        // When the evaluation raises it, not when the evidence began.
        g.first_flag[system] = now;
        ++first_by_rule_[d.rule];
      }
    }
  }

  Args args_;
  std::mt19937_64 rng_;
  std::chrono::sys_days start_ = std::chrono::sys_days{std::chrono::year{2026} / 11 / 1};
  std::vector<Gpu> gpus_;
  std::vector<double> node_offset_;
  std::vector<double> rack_ambient_;
  std::vector<bool> node_idle_;
  std::set<int> crash_nodes_;
  long long gpu_days_ = 0;
  int false_flags_[2] = {0, 0};
  std::map<std::string, int> false_by_rule_;
  std::map<std::string, int> first_by_rule_;
};

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  Sim sim(args);
  sim.build();
  sim.run();
  sim.report();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n(%.1f s)\n", secs);
  return 0;
}
