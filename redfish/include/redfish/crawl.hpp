// The asynchronous inventory crawl: every independent GET is issued as soon as its link is known,
// so the transport's per-BMC request slots stay busy; no thread per BMC, nothing blocks inside a
// callback. Completes exactly once, on whichever thread delivered the last response.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/inventory.hpp"

namespace redfish {

struct CrawlStats {
  std::atomic<std::size_t> requests{0};  // GETs sent, including $expand fallbacks
  // The longest chain of requests that each needed the previous one's answer (service root ->
  // Systems -> system -> Processors -> processor is 5): the crawl's critical path.
  std::atomic<std::size_t> longestChain{0};
};

struct CrawlOptions {
  // Ask for `?$expand=.($levels=1)` on collections when the service root's
  // ProtocolFeaturesSupported.ExpandQuery allows it; a 4xx or member-less answer falls back to
  // per-member GETs.
  bool useExpand = true;
  bool crawlFirmware = true;
  bool crawlChassis = true;
  bool crawlManagers = true;
  // Requests this crawl keeps in flight (0: all it knows of). Set it to the transport's per-BMC
  // limit: the crawl then chooses what goes next (links that open more work before leaf
  // members) instead of the transport's first-come order, which keeps the BMC's slots busy to
  // the end.
  std::size_t maxInFlight = 2;
  // Optional: counts the requests of this crawl (the benchmark reads it).
  std::shared_ptr<CrawlStats> stats;
};

using InventoryCallback = std::function<void(common::Result<Inventory>)>;

void crawlInventoryAsync(std::shared_ptr<Client> client, CrawlOptions options,
                         InventoryCallback done);

// Blocking wrappers; never call from a transport callback.
common::Result<Inventory> crawlInventory(std::shared_ptr<Client> client, CrawlOptions options = {});
common::Result<Inventory> crawlInventory(Client& client, CrawlOptions options = {});

}  // namespace redfish
