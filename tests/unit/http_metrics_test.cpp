#include <catch2/catch.hpp>

#include <stdexcept>
#include <thread>
#include <vector>

#include "provisioner/http/metrics.hpp"

using provisioner::http::appendCounter;
using provisioner::http::appendGauge;
using provisioner::http::escapeLabelValue;
using provisioner::http::formatSampleValue;
using provisioner::http::MetricsRegistry;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("render counts requests by route, method and status", "[unit][http]") {
  MetricsRegistry metrics;
  metrics.observeRequest("nodes.get", "GET", 200, 0.002);
  metrics.observeRequest("nodes.get", "GET", 200, 0.004);
  metrics.observeRequest("nodes.get", "GET", 404, 0.001);
  metrics.observeRequest("unmatched", "BREW", 404, 0.001);
  const auto text = metrics.render();
  CHECK(contains(text, "# HELP provisioner_http_requests_total "));
  CHECK(contains(text, "# TYPE provisioner_http_requests_total counter\n"));
  CHECK(contains(
      text,
      "provisioner_http_requests_total{route=\"nodes.get\",method=\"GET\",status=\"200\"} 2\n"));
  CHECK(contains(
      text,
      "provisioner_http_requests_total{route=\"nodes.get\",method=\"GET\",status=\"404\"} 1\n"));
  // Unknown methods share one label value, so clients cannot grow the series without bound.
  CHECK(contains(
      text,
      "provisioner_http_requests_total{route=\"unmatched\",method=\"OTHER\",status=\"404\"} 1\n"));
}

TEST_CASE("render writes a cumulative latency histogram per route", "[unit][http]") {
  MetricsRegistry metrics;
  metrics.observeRequest("po.create", "POST", 201, 0.0004);  // first bucket
  metrics.observeRequest("po.create", "POST", 201, 0.001);   // exactly on a bound: le="0.001"
  metrics.observeRequest("po.create", "POST", 201, 0.3);
  metrics.observeRequest("po.create", "POST", 201, 60.0);  // only +Inf
  const auto text = metrics.render();
  const std::string h = "provisioner_http_request_duration_seconds";
  CHECK(contains(text, "# TYPE " + h + " histogram\n"));
  CHECK(contains(text, h + "_bucket{route=\"po.create\",le=\"0.0005\"} 1\n"));
  CHECK(contains(text, h + "_bucket{route=\"po.create\",le=\"0.001\"} 2\n"));
  CHECK(contains(text, h + "_bucket{route=\"po.create\",le=\"0.25\"} 2\n"));
  CHECK(contains(text, h + "_bucket{route=\"po.create\",le=\"0.5\"} 3\n"));
  CHECK(contains(text, h + "_bucket{route=\"po.create\",le=\"10\"} 3\n"));
  CHECK(contains(text, h + "_bucket{route=\"po.create\",le=\"+Inf\"} 4\n"));
  CHECK(contains(text, h + "_count{route=\"po.create\"} 4\n"));
  CHECK(contains(text, h + "_sum{route=\"po.create\"} 60.3014\n"));
}

TEST_CASE("label values are escaped", "[unit][http]") {
  CHECK(escapeLabelValue("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
  MetricsRegistry metrics;
  metrics.observeRequest("we\"ird\\name\n", "GET", 200, 0.1);
  CHECK(contains(metrics.render(), "route=\"we\\\"ird\\\\name\\n\""));
}

TEST_CASE("collectors add their lines and a throwing one is skipped", "[unit][http]") {
  MetricsRegistry metrics;
  metrics.addCollector([](std::string& out) {
    appendGauge(out, "provisioner_db_pool_in_use", "Connections in use.", 3);
  });
  metrics.addCollector([](std::string&) { throw std::runtime_error("pool gone"); });
  const auto text = metrics.render();
  CHECK(contains(text,
                 "# HELP provisioner_db_pool_in_use Connections in use.\n"
                 "# TYPE provisioner_db_pool_in_use gauge\n"
                 "provisioner_db_pool_in_use 3\n"));
}

TEST_CASE("sample values use Prometheus spellings", "[unit][http]") {
  CHECK(formatSampleValue(0.25) == "0.25");
  CHECK(formatSampleValue(3) == "3");
  CHECK(formatSampleValue(1.0 / 0.0) == "+Inf");
  CHECK(formatSampleValue(0.0 / 0.0) == "NaN");
}

TEST_CASE("observeRequest is safe from many threads", "[unit][http]") {
  MetricsRegistry metrics;
  constexpr int kThreads = 8;
  constexpr int kEach = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < kEach; ++i) {
        metrics.observeRequest(t % 2 == 0 ? "a" : "b", "GET", 200, 0.001);
        if (i % 500 == 0) (void)metrics.render();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const auto text = metrics.render();
  CHECK(
      contains(text, "provisioner_http_requests_total{route=\"a\",method=\"GET\",status=\"200\"} " +
                         std::to_string(kThreads / 2 * kEach) + "\n"));
  CHECK(contains(text, "provisioner_http_request_duration_seconds_count{route=\"b\"} " +
                           std::to_string(kThreads / 2 * kEach) + "\n"));
}

TEST_CASE("a total read at scrape time is typed counter", "[unit][http]") {
  std::string out;
  appendCounter(out, "provisioner_db_errors_total", "Failed statements.", 2);
  CHECK(out ==
        "# HELP provisioner_db_errors_total Failed statements.\n"
        "# TYPE provisioner_db_errors_total counter\n"
        "provisioner_db_errors_total 2\n");
}
