// Crawls the full inventory of every BMC listed in a bmc-sim state file at once, through the
// libcurl transport and the asynchronous crawl, and prints one JSON line of figures: wall time
// against the lower bound (the critical path of requests, or the requests the per-BMC limit lets
// through, whichever is longer, times the simulated latency), requests per BMC, connections,
// CPU-seconds and peak RSS of this process.
//   redfish-crawl-bench --endpoints FILE --password P [--latency-ms 50] [--per-bmc 2]
//                       [--global 2048] [--no-expand]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "redfish/crawl.hpp"
#include "redfish/transport.hpp"

namespace {

struct Args {
  std::string endpointsFile;
  std::string password;
  double latencyMs = 50;
  std::size_t perBmc = 2;
  std::size_t global = 2048;
  bool expand = true;
  bool trace = false;  // print every attempt (method, status, URL) to stderr
};

bool parseArgs(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (flag == "--endpoints") {
      args.endpointsFile = next();
    } else if (flag == "--password") {
      args.password = next();
    } else if (flag == "--latency-ms") {
      args.latencyMs = std::stod(next());
    } else if (flag == "--per-bmc") {
      args.perBmc = std::stoul(next());
    } else if (flag == "--global") {
      args.global = std::stoul(next());
    } else if (flag == "--no-expand") {
      args.expand = false;
    } else if (flag == "--trace") {
      args.trace = true;
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return false;
    }
  }
  return !args.endpointsFile.empty() && !args.password.empty();
}

double cpuSeconds(const rusage& usage) {
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Outcome {
  std::shared_ptr<redfish::CrawlStats> stats = std::make_shared<redfish::CrawlStats>();
  bool ok = false;
  std::string error;
};

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parseArgs(argc, argv, args)) {
    std::cerr << "usage: redfish-crawl-bench --endpoints FILE --password P [--latency-ms MS] "
                 "[--per-bmc N] [--global N] [--no-expand]\n";
    return 2;
  }
  std::ifstream in(args.endpointsFile);
  auto endpoints = nlohmann::json::parse(in, nullptr, false);
  if (!endpoints.is_array() || endpoints.empty()) {
    std::cerr << "no endpoints in " << args.endpointsFile << "\n";
    return 1;
  }
  redfish::TransportOptions options;
  options.maxInFlightPerBmc = args.perBmc;
  options.maxInFlightTotal = args.global;
  if (args.trace) {
    options.trace = [](const redfish::TraceEvent& e) {
      std::cerr << e.method << " " << e.status << " " << e.url << "\n";
    };
  }
  redfish::Transport transport(options);

  std::vector<Outcome> outcomes(endpoints.size());
  std::vector<std::shared_ptr<redfish::BmcClient>> clients;
  std::mutex mutex;
  std::condition_variable finished;
  std::size_t done = 0;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const auto& e = endpoints[i];
    redfish::BmcEndpoint endpoint;
    endpoint.baseUrl = e.value("base_url", "");
    endpoint.username = e.value("username", "");
    endpoint.password = args.password;
    if (!e.value("fingerprint", "").empty()) {
      endpoint.tls = {redfish::TlsPolicy::Mode::kPinned, e.value("fingerprint", ""), {}};
    }
    auto client = transport.client(endpoint);
    if (!client) {
      std::cerr << client.error().message << "\n";
      return 1;
    }
    clients.push_back(*client);
    redfish::CrawlOptions crawl;
    crawl.useExpand = args.expand;
    crawl.stats = outcomes[i].stats;
    redfish::crawlInventoryAsync(*client, crawl, [&, i](common::Result<redfish::Inventory> r) {
      std::lock_guard lock(mutex);
      outcomes[i].ok = r.ok();
      if (!r.ok()) outcomes[i].error = r.error().message;
      if (++done == outcomes.size()) finished.notify_one();
    });
  }
  {
    std::unique_lock lock(mutex);
    finished.wait(lock, [&] { return done == outcomes.size(); });
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  auto stats = transport.stats();

  // Per BMC: the crawl's GETs plus the transport's service-root probe and the session login,
  // which come first and in sequence.
  constexpr std::size_t kSessionSetup = 2;
  std::vector<std::size_t> requests;
  std::size_t chain = 0;
  std::size_t failures = 0;
  for (const auto& o : outcomes) {
    requests.push_back(o.stats->requests + kSessionSetup);
    chain = std::max(chain, o.stats->longestChain.load() + kSessionSetup);
    if (!o.ok) {
      if (failures++ < 3) std::cerr << "crawl failed: " << o.error << "\n";
    }
  }
  std::sort(requests.begin(), requests.end());
  const std::size_t busiest = requests.back();
  std::size_t total = 0;
  for (auto r : requests) total += r;
  const double perBmcRounds = std::ceil(double(busiest) / double(args.perBmc));
  const double globalRounds = std::ceil(double(total) / double(args.global));
  const double rounds = std::max({double(chain), perBmcRounds, globalRounds});
  const double lowerBound = rounds * args.latencyMs / 1000.0;

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  nlohmann::json report = {{"tool", "provisioner"},
                           {"bmcs", outcomes.size()},
                           {"failures", failures},
                           {"wall_s", wall},
                           {"lower_bound_s", lowerBound},
                           {"ratio_to_lower_bound", wall / lowerBound},
                           {"longest_chain", chain},
                           {"requests_per_bmc_median", requests[requests.size() / 2]},
                           {"requests_per_bmc_max", busiest},
                           {"requests_total", total},
                           {"attempts", stats.attempts},
                           {"retries", stats.retries},
                           {"logins", stats.logins},
                           {"connections_opened", stats.connectionsOpened},
                           {"peak_in_flight", stats.peakInFlight},
                           {"cpu_s", cpuSeconds(usage)},
                           {"peak_rss_mb", usage.ru_maxrss / 1024.0}};
  transport.shutdown();
  std::cout << report.dump() << std::endl;
  return failures == 0 ? 0 : 1;
}
