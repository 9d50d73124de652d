#include "redfish/crawl.hpp"

#include <future>

#include "crawler.hpp"

namespace redfish {

void crawlInventoryAsync(std::shared_ptr<Client> client, CrawlOptions options,
                         InventoryCallback done) {
  auto crawler =
      std::make_shared<ops::Crawler>(std::move(client), std::move(options), std::move(done));
  crawler->start();
}

common::Result<Inventory> crawlInventory(std::shared_ptr<Client> client, CrawlOptions options) {
  auto promise = std::make_shared<std::promise<common::Result<Inventory>>>();
  auto future = promise->get_future();
  crawlInventoryAsync(
      std::move(client), std::move(options),
      [promise](common::Result<Inventory> result) { promise->set_value(std::move(result)); });
  return future.get();
}

common::Result<Inventory> crawlInventory(Client& client, CrawlOptions options) {
  // Non-owning: the blocking call outlives every callback of the crawl.
  std::shared_ptr<Client> borrowed(&client, [](Client*) {});
  return crawlInventory(std::move(borrowed), std::move(options));
}

}  // namespace redfish
