// The load of bench/health_ingest/run: the resident monitors of --nodes nodes x 8 GPUs, each
// posting one batch every --interval seconds for --seconds, as provisioner-agent monitor does
// (docs/health.md). Open loop: node n's j-th batch is due at start + j x interval + its offset
// (the nodes spread evenly over the interval), whatever the answers before it took, so a service
// that cannot keep up shows as achieved < offered instead of slowing the load down. Threads own
// a share of the nodes each, a connection per batch. Prints one JSON object.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int port = 0;
  int nodes = 1250;
  int gpus = 8;
  double interval = 10;
  double seconds = 600;
  int threads = 8;
  long start_epoch = 0;  // sampled_at of the first round
};

struct Totals {
  std::mutex mutex;
  long offered = 0;
  long ok = 0;
  std::map<int, long> failed;  // status (0: no answer) -> count
  std::vector<double> latency_ms;
  double max_lag_s = 0;  // how late the latest send started against its schedule
};

std::string isoTime(long epoch) {
  std::time_t t = epoch;
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// A batch as the monitor sends it: every field the service stores, ECC counts that grow slowly.
std::string batchBody(const Options& o, int node, long sampled_at, unsigned& seed) {
  std::string body = "{\"sampled_at\":\"" + isoTime(sampled_at) + "\",\"gpus\":[";
  const long ecc = (sampled_at / 3600) % 7;
  char gpu[640];
  for (int g = 0; g < o.gpus; ++g) {
    const double temperature = 60 + (rand_r(&seed) % 800) / 100.0;
    const double power = 600 + (rand_r(&seed) % 8000) / 100.0;
    std::snprintf(gpu, sizeof gpu,
                  "%s{\"serial\":\"HG%07d-%d\",\"driver_epoch\":\"580.95.05\","
                  "\"temperature_c\":%.2f,\"power_w\":%.2f,\"sm_clock_mhz\":1980,"
                  "\"clock_event_reasons\":0,\"ecc_corrected_volatile\":%ld,"
                  "\"ecc_uncorrected_volatile\":0,\"ecc_corrected_aggregate\":%ld,"
                  "\"ecc_uncorrected_aggregate\":0,\"remapped_correctable\":0,"
                  "\"remapped_uncorrectable\":0,\"retired_pages\":0,\"nvlink_crc_errors\":0,"
                  "\"nvlink_replay_errors\":0,\"nvlink_recovery_errors\":0,\"xids\":[]}",
                  g == 0 ? "" : ",", node, g, temperature, power, ecc, 100 + ecc);
    body += gpu;
  }
  return body + "]}";
}

void runThread(const Options& o, int thread, Clock::time_point t0, Totals& totals) {
  httplib::Client client("127.0.0.1", o.port);
  // A connection per batch, as the agent opens one (a kept-alive connection per node would
  // hold one of the service's HTTP workers for each of thousands of nodes).
  client.set_keep_alive(false);
  client.set_read_timeout(30, 0);
  unsigned seed = static_cast<unsigned>(thread) + 1;
  std::vector<int> mine;
  for (int n = 1; n <= o.nodes; ++n) {
    if (n % o.threads == thread) mine.push_back(n);
  }
  const long rounds = static_cast<long>(o.seconds / o.interval);
  std::vector<double> latencies;
  long ok = 0, offered = 0;
  std::map<int, long> failed;
  double max_lag = 0;
  for (long j = 0; j < rounds; ++j) {
    for (int n : mine) {
      const double offset = o.interval * (n - 1) / o.nodes;
      const auto due = t0 + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(j * o.interval + offset));
      std::this_thread::sleep_until(due);
      ++offered;
      const auto sent = Clock::now();
      max_lag = std::max(max_lag, std::chrono::duration<double>(sent - due).count());
      const long sampled_at = o.start_epoch + static_cast<long>(j * o.interval + offset);
      const std::string secret = "Bearer nmc_bench_" + std::to_string(n);
      auto res = client.Post("/api/v1/agent/nodes/" + std::to_string(n) + "/health",
                             httplib::Headers{{"Authorization", secret}},
                             batchBody(o, n, sampled_at, seed), "application/json");
      latencies.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
      if (res && res->status == 200) {
        ++ok;
      } else {
        ++failed[res ? res->status : 0];
      }
    }
  }
  std::lock_guard lock(totals.mutex);
  totals.offered += offered;
  totals.ok += ok;
  for (auto [status, count] : failed) totals.failed[status] += count;
  totals.latency_ms.insert(totals.latency_ms.end(), latencies.begin(), latencies.end());
  totals.max_lag_s = std::max(totals.max_lag_s, max_lag);
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--port") o.port = std::atoi(value);
    else if (flag == "--nodes") o.nodes = std::atoi(value);
    else if (flag == "--gpus") o.gpus = std::atoi(value);
    else if (flag == "--interval") o.interval = std::atof(value);
    else if (flag == "--seconds") o.seconds = std::atof(value);
    else if (flag == "--threads") o.threads = std::atoi(value);
    else if (flag == "--start") o.start_epoch = std::atol(value);
    else return false;
  }
  return o.port > 0 && o.nodes > 0 && o.gpus > 0 && o.gpus <= 64 && o.interval >= 1 &&
         o.seconds >= o.interval && o.threads > 0 && o.start_epoch > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: health-ingest-load --port P --start EPOCH [--nodes N] [--gpus G] "
                 "[--interval S] [--seconds T] [--threads K]\n";
    return 2;
  }
  Totals totals;
  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int k = 0; k < o.threads; ++k) {
    threads.emplace_back([&o, k, t0, &totals] { runThread(o, k, t0, totals); });
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string failed = "{";
  for (auto [status, count] : totals.failed) {
    failed += (failed.size() > 1 ? "," : "") + std::string("\"") + std::to_string(status) +
              "\":" + std::to_string(count);
  }
  failed += "}";
  std::printf(
      "{\"nodes\":%d,\"gpus_per_node\":%d,\"interval_s\":%.1f,\"elapsed_s\":%.1f,"
      "\"batches_offered\":%ld,\"batches_ok\":%ld,\"failed\":%s,"
      "\"offered_readings_per_s\":%.1f,\"achieved_readings_per_s\":%.1f,"
      "\"achieved_over_offered\":%.4f,\"post_p50_ms\":%.2f,\"post_p99_ms\":%.2f,"
      "\"max_send_lag_s\":%.2f}\n",
      o.nodes, o.gpus, o.interval, elapsed, totals.offered, totals.ok, failed.c_str(),
      o.nodes * o.gpus / o.interval, static_cast<double>(totals.ok) * o.gpus / o.seconds,
      totals.offered ? static_cast<double>(totals.ok) / static_cast<double>(totals.offered) : 0,
      percentile(totals.latency_ms, 0.5), percentile(totals.latency_ms, 0.99), totals.max_lag_s);
  return 0;
}
