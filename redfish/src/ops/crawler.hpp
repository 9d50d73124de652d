// The state machine behind crawlInventoryAsync. Each response is parsed off the lock, then its
// handler runs under the lock and may queue further GETs; those are sent after the lock is
// released (a transport may complete inline). The crawl completes when nothing is outstanding,
// or at once on a fatal error.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "redfish/crawl.hpp"
#include "redfish/json.hpp"
#include "redfish/quirks.hpp"

namespace redfish::ops {

class Crawler : public std::enable_shared_from_this<Crawler> {
 public:
  Crawler(std::shared_ptr<Client> client, CrawlOptions options, InventoryCallback done);
  void start();

 private:
  // kFatal: an error fails the crawl. kMember: a system member; 404 (and the HGX 503) warn,
  // anything else fails. kOptional: any error is a warning.
  enum class Level { kFatal, kMember, kOptional };
  using Handler = std::function<void(const Json&)>;
  struct Pending {
    std::string target;
    Level level;
    Handler handler;
    bool expanded;        // a `$expand` attempt whose 4xx falls back to the plain collection
    int depth = 1;        // requests in the dependency chain up to and including this one
    bool member = false;  // a collection member: sent after links that may lead to more work
  };

  // All of these run under mutex_.
  void get(const std::string& path, Level level, Handler handler);
  void collection(const std::string& path, Level level, Handler perMember);
  void collectionPage(const Json& page, Level level, const Handler& perMember);
  bool markSeen(const std::string& path);
  void warn(std::string text);
  void fail(common::Error error);
  void onError(const Pending& pending, long status, common::Error error);
  void enqueue(std::vector<Pending>& fresh);
  std::vector<Pending> takeSendable();

  void onRoot(const Json& root);
  void onSystem(const Json& body);
  void onStorage(std::size_t system, const Json& body);
  void onChassis(const Json& body);
  void onNetworkAdapter(std::size_t chassis, const Json& body);
  void onManager(const Json& body);

  // Off the lock.
  void send(Pending pending);
  void onResponse(const Pending& pending, common::Result<Response> answer);
  void finishOne();

  std::shared_ptr<Client> client_;
  CrawlOptions options_;
  InventoryCallback done_;

  std::mutex mutex_;
  Inventory inventory_;
  Quirks quirks_;
  bool expand_ = false;
  std::unordered_set<std::string> seen_;
  std::vector<Pending>* queue_ = nullptr;  // where get() queues while a handler runs
  int handlerDepth_ = 0;                   // depth of the response whose handler runs now
  bool memberContext_ = false;             // get() is queuing a collection member
  // The crawl's own window (CrawlOptions::maxInFlight): links that open more work go first, so
  // the BMC's few slots never idle behind a long run of leaf members.
  std::deque<Pending> links_, members_;
  std::size_t inFlight_ = 0;
  std::size_t outstanding_ = 0;
  bool completed_ = false;  // no more handlers run (finished or failed)
  bool reported_ = false;   // done_ has been called
  std::optional<common::Error> failure_;
};

// Deterministic order, GPU model fill-in and the GPU summary, once every response is in.
void finalizeInventory(Inventory& inventory);

}  // namespace redfish::ops
