// Request metrics in Prometheus text exposition format (docs/api.md "GET /metrics").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace provisioner::http {

// Thread-safe. The hot path takes a shared lock for the lookup and then only touches atomics;
// the exclusive lock is taken once per new series. Label sets are bounded: routes are the
// registered names plus "unmatched", unknown methods are counted as "OTHER".
class MetricsRegistry {
 public:
  // Upper bounds (seconds) of the latency histogram buckets, +Inf implied.
  static constexpr double kLatencyBuckets[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                               0.1,    0.25,  0.5,    1.0,   2.5,  5.0,   10.0};

  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Counts provisioner_http_requests_total{route,method,status} and observes
  // provisioner_http_request_duration_seconds{route}.
  void observeRequest(std::string_view route_name, std::string_view method, int status,
                      double seconds);

  // Adds text (complete HELP/TYPE/sample lines) to every render, e.g. the database pool gauges.
  // Collectors run on the scraping thread, outside the registry's lock.
  void addCollector(std::function<void(std::string& out)> collector);

  std::string render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Escapes a label value: backslash, double quote and line feed.
std::string escapeLabelValue(std::string_view value);
// Appends "# HELP", "# TYPE <name> gauge" and one unlabelled sample: a helper for collectors.
void appendGauge(std::string& out, std::string_view name, std::string_view help, double value);
// The same with "# TYPE <name> counter", for a total read at scrape time (name ends in _total).
void appendCounter(std::string& out, std::string_view name, std::string_view help, double value);
// A sample value as Prometheus writes it ("0.25", "3", "+Inf", "NaN").
std::string formatSampleValue(double value);

}  // namespace provisioner::http
