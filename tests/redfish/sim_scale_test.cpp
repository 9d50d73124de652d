// A thousand simulated BMCs crawled at once from one transport thread: every crawl completes and
// neither the per-BMC nor the global in-flight limit is ever exceeded, as seen by the client and
// by the BMCs themselves (open connections).
#include <condition_variable>
#include <mutex>

#include <catch2/catch.hpp>

#include "redfish/crawl.hpp"
#include "redfish/support/sim_fixture.hpp"

TEST_CASE("A thousand BMCs crawled concurrently within the in-flight limits", "[redfish][sim]") {
  constexpr int kBmcs = 1000;
  constexpr std::size_t kGlobalLimit = 256;
  auto options = testing::quickTransportOptions();
  options.maxInFlightPerBmc = 2;
  options.maxInFlightTotal = kGlobalLimit;
  options.requestTimeout = std::chrono::seconds(60);
  auto spec = testing::oneRack("dell-r750", kBmcs, false);
  spec["faults"] = {{"latency_ms", 5}};
  auto sim = testing::SimFleet::start(spec, options);

  std::mutex mutex;
  std::condition_variable finished;
  int done = 0;
  std::vector<std::string> failures;
  std::vector<std::shared_ptr<redfish::BmcClient>> clients;
  redfish::CrawlOptions crawl;
  // Systems only, to keep the sanitizer build quick; bench/redfish_crawl crawls everything.
  crawl.crawlFirmware = false;
  crawl.crawlChassis = false;
  crawl.crawlManagers = false;
  for (const auto& bmc : sim.fleet->bmcs()) {
    auto client = sim.client(bmc.id);
    clients.push_back(client);
    redfish::crawlInventoryAsync(client, crawl, [&, id = bmc.id](auto result) {
      std::lock_guard lock(mutex);
      if (!result.ok()) failures.push_back(id + ": " + result.error().message);
      if (++done == kBmcs) finished.notify_one();
    });
  }
  {
    std::unique_lock lock(mutex);
    REQUIRE(finished.wait_for(lock, std::chrono::minutes(5), [&] { return done == kBmcs; }));
  }
  CHECK(failures.empty());
  auto transportStats = sim.transport->stats();
  CHECK(transportStats.peakInFlight <= kGlobalLimit);
  CHECK(transportStats.peakInFlight > kGlobalLimit / 2);  // the limit was reached, not idle
  for (const auto& client : clients) CHECK(client->peakInFlight() <= 2);
  auto fleetStats = sim.fleet->stats();
  for (const auto& bmc : fleetStats.bmcs) {
    CHECK(bmc.peakConnections <= 2);
    CHECK(bmc.requests > 5);
  }
  // Connections are reused: far fewer than requests.
  WARN("attempts " << transportStats.attempts << ", connections opened (client) "
                   << transportStats.connectionsOpened << ", accepted (BMCs) "
                   << fleetStats.connectionsAccepted);
  CHECK(fleetStats.connectionsAccepted * 3 < transportStats.attempts);
}
