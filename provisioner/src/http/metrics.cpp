#include "provisioner/http/metrics.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace provisioner::http {
namespace {

constexpr std::size_t kBucketCount = std::size(MetricsRegistry::kLatencyBuckets);
constexpr std::string_view kRequestsName = "provisioner_http_requests_total";
constexpr std::string_view kDurationName = "provisioner_http_request_duration_seconds";
constexpr std::string_view kKnownMethods[] = {"GET",   "HEAD",   "POST",   "PUT",
                                              "PATCH", "DELETE", "OPTIONS"};

struct Histogram {
  std::array<std::atomic<std::uint64_t>, kBucketCount + 1> buckets{};  // last one is +Inf
  std::atomic<std::uint64_t> sum_nanos{0};
  std::atomic<std::uint64_t> count{0};

  void observe(double seconds) {
    // Bucket i counts observations <= bound i: the first bound not below `seconds`.
    const auto* begin = std::begin(MetricsRegistry::kLatencyBuckets);
    const auto* bound =
        std::lower_bound(begin, std::end(MetricsRegistry::kLatencyBuckets), seconds);
    const auto index = static_cast<std::size_t>(bound - begin);
    buckets[index].fetch_add(1, std::memory_order_relaxed);
    const double nanos = std::max(0.0, seconds) * 1e9;
    sum_nanos.fetch_add(static_cast<std::uint64_t>(nanos), std::memory_order_relaxed);
    count.fetch_add(1, std::memory_order_relaxed);
  }
};

std::string_view normalizedMethod(std::string_view method) {
  for (auto known : kKnownMethods) {
    if (known == method) return known;
  }
  return "OTHER";
}

// One sample line: name{labels} value
void appendSample(std::string& out, std::string_view name, std::string_view labels,
                  std::string_view value) {
  out.append(name);
  if (!labels.empty()) out.append("{").append(labels).append("}");
  out.append(" ").append(value).append("\n");
}

std::string counterKey(std::string_view route, std::string_view method, int status) {
  std::string key(route);
  key.push_back('\n');  // never in a route name we render unescaped, so keys cannot collide
  key.append(method);
  key.push_back('\n');
  key.append(std::to_string(status));
  return key;
}

}  // namespace

struct MetricsRegistry::Impl {
  struct CounterSeries {
    std::string route;
    std::string method;
    int status = 0;
    std::atomic<std::uint64_t> value{0};
  };

  mutable std::shared_mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<CounterSeries>> counters;
  std::unordered_map<std::string, std::unique_ptr<Histogram>> histograms;
  std::mutex collectors_mutex;
  std::vector<std::shared_ptr<std::function<void(std::string&)>>> collectors;

  // Finds or creates the series under `key`; pointers stay valid as series are never removed.
  template <class Series, class Make>
  Series* series(std::unordered_map<std::string, std::unique_ptr<Series>>& map,
                 const std::string& key, Make make) {
    {
      std::shared_lock lock(mutex);
      auto it = map.find(key);
      if (it != map.end()) return it->second.get();
    }
    std::unique_lock lock(mutex);
    auto [it, inserted] = map.try_emplace(key);
    if (inserted) it->second = make();
    return it->second.get();
  }

  void renderCounters(std::string& out) const;
  void renderHistograms(std::string& out) const;
};

MetricsRegistry::MetricsRegistry() : impl_(std::make_unique<Impl>()) {}
MetricsRegistry::~MetricsRegistry() = default;

void MetricsRegistry::observeRequest(std::string_view route_name, std::string_view method,
                                     int status, double seconds) {
  const auto method_label = normalizedMethod(method);
  status = std::clamp(status, 0, 999);
  auto* counter = impl_->series(impl_->counters, counterKey(route_name, method_label, status), [&] {
    auto made = std::make_unique<Impl::CounterSeries>();
    made->route = std::string(route_name);
    made->method = std::string(method_label);
    made->status = status;
    return made;
  });
  counter->value.fetch_add(1, std::memory_order_relaxed);
  auto* histogram = impl_->series(impl_->histograms, std::string(route_name),
                                  [] { return std::make_unique<Histogram>(); });
  histogram->observe(seconds);
}

void MetricsRegistry::addCollector(std::function<void(std::string& out)> collector) {
  std::lock_guard lock(impl_->collectors_mutex);
  impl_->collectors.push_back(
      std::make_shared<std::function<void(std::string&)>>(std::move(collector)));
}

void MetricsRegistry::Impl::renderCounters(std::string& out) const {
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> sorted;
  {
    std::shared_lock lock(mutex);
    for (const auto& [key, c] : counters) {
      sorted[{c->route, c->method, c->status}] = c->value.load(std::memory_order_relaxed);
    }
  }
  out +=
      "# HELP provisioner_http_requests_total HTTP requests answered, by route name, method "
      "and status.\n# TYPE provisioner_http_requests_total counter\n";
  for (const auto& [key, value] : sorted) {
    const auto& [route, method, status] = key;
    std::string labels = "route=\"";
    labels.append(escapeLabelValue(route)).append("\",method=\"").append(method);
    labels.append("\",status=\"").append(std::to_string(status)).append("\"");
    appendSample(out, kRequestsName, labels, std::to_string(value));
  }
}

void MetricsRegistry::Impl::renderHistograms(std::string& out) const {
  std::map<std::string, const Histogram*> sorted;
  {
    std::shared_lock lock(mutex);
    for (const auto& [route, h] : histograms) sorted[route] = h.get();
  }
  out +=
      "# HELP provisioner_http_request_duration_seconds Time to answer HTTP requests, by route "
      "name.\n# TYPE provisioner_http_request_duration_seconds histogram\n";
  const std::string name(kDurationName);
  const std::string bucket_name = name + "_bucket";
  for (const auto& [route, h] : sorted) {
    const std::string label = "route=\"" + escapeLabelValue(route) + "\"";
    // Read count first: buckets may run ahead of it, never behind, during a concurrent observe.
    const auto count = h->count.load(std::memory_order_relaxed);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= kBucketCount; ++i) {
      cumulative += h->buckets[i].load(std::memory_order_relaxed);
      const bool last = i == kBucketCount;
      std::string labels = label;
      labels.append(",le=\"")
          .append(last ? "+Inf" : formatSampleValue(MetricsRegistry::kLatencyBuckets[i]))
          .append("\"");
      appendSample(out, bucket_name, labels,
                   std::to_string(last ? count : std::min(cumulative, count)));
    }
    const double sum = static_cast<double>(h->sum_nanos.load(std::memory_order_relaxed)) / 1e9;
    appendSample(out, name + "_sum", label, formatSampleValue(sum));
    appendSample(out, name + "_count", label, std::to_string(count));
  }
}

std::string MetricsRegistry::render() const {
  std::string out;
  impl_->renderCounters(out);
  impl_->renderHistograms(out);
  std::vector<std::shared_ptr<std::function<void(std::string&)>>> collectors;
  {
    std::lock_guard lock(impl_->collectors_mutex);
    collectors = impl_->collectors;
  }
  for (const auto& collector : collectors) {
    try {
      (*collector)(out);
    } catch (...) {
      // A broken collector must not take the whole scrape down; its lines are simply missing.
    }
  }
  return out;
}

std::string escapeLabelValue(std::string_view value) {
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

std::string formatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::array<char, 64> buffer{};
  // Plain decimals ("0.0005", not "5e-04") where they stay short, as Prometheus clients write.
  const double magnitude = std::fabs(value);
  const auto format = magnitude == 0 || (magnitude >= 1e-6 && magnitude < 1e15)
                          ? std::chars_format::fixed
                          : std::chars_format::general;
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format);
  if (ec != std::errc()) return "NaN";
  return std::string(buffer.data(), end);
}

void appendGauge(std::string& out, std::string_view name, std::string_view help, double value) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" gauge\n");
  appendSample(out, name, {}, formatSampleValue(value));
}

void appendCounter(std::string& out, std::string_view name, std::string_view help, double value) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" counter\n");
  appendSample(out, name, {}, formatSampleValue(value));
}

}  // namespace provisioner::http
