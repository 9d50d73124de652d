// A real service for API tests: fresh database with migrations, the ApiServer with every route on
// an ephemeral port, tokens for each role, and an HTTP client helper.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "images/signing.hpp"
#include "inventory/database.hpp"
#include "provisioner/api/api.hpp"
#include "provisioner/api/key_ring.hpp"

namespace workflows {
class Engine;
class Sweeper;
}  // namespace workflows

namespace testing {

struct ServiceFixtureOptions {
  // A real workflow Engine (not started: tests call runOnce()) with stand-ins for
  // "node_lifecycle" and the campaign controller "firmware_campaign" whose only step waits, a
  // Sweeper, and the campaign kick (service/campaign_kick.hpp), in the API context.
  bool with_engine = false;
  // The API's health clock (ApiContext::health_clock); null: the system clock.
  std::shared_ptr<workflows::Clock> health_clock;
};

inline ServiceFixtureOptions withEngine() {
  ServiceFixtureOptions o;
  o.with_engine = true;
  return o;
}

struct HttpResult {
  int status = 0;
  std::string body;
  std::string content_type;
  httplib::Headers headers;
  nlohmann::json json() const;  // the parsed body (fails the test if it is not JSON)
};

class ServiceFixture {
 public:
  ServiceFixture();
  explicit ServiceFixture(ServiceFixtureOptions options);
  ~ServiceFixture();

  // Token secret of a fresh token with this role ("viewer" ... "admin").
  const std::string& token(const std::string& role) const { return tokens_.at(role); }
  int port() const { return port_; }
  inventory::Database& db() { return *db_; }
  const std::string& databaseUrl() const { return url_; }

  HttpResult get(const std::string& path, const std::string& role = "admin",
                 const httplib::Headers& extra = {});
  HttpResult send(const std::string& method, const std::string& path, const std::string& body,
                  const std::string& role = "admin",
                  const std::string& content_type = "application/json",
                  const httplib::Headers& extra = {});
  HttpResult sendJson(const std::string& method, const std::string& path,
                      const nlohmann::json& body, const std::string& role = "admin") {
    return send(method, path, body.dump(), role);
  }
  // Without any Authorization header; `headers` may carry an agent token.
  HttpResult anonymous(const std::string& method, const std::string& path,
                       const std::string& body = "", const httplib::Headers& headers = {});

  // The artifact store (a fresh temporary folder) and the keys image registration trusts.
  const std::filesystem::path& storeDir() const { return store_dir_; }
  // Adds a key to the ones image registration trusts (as a reload would).
  void trustKey(const images::PublicKey& key);
  // The URL booting nodes are told to reach the service at.
  std::string publicUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Null unless built with_engine.
  workflows::Engine* engine() const { return engine_.get(); }
  workflows::Sweeper* sweeper() const { return sweeper_.get(); }

 private:
  std::string url_;
  inventory::DatabasePtr db_;
  std::shared_ptr<provisioner::http::MetricsRegistry> metrics_;
  // A long TTL, so tests show that revocation clears it rather than waiting it out.
  std::shared_ptr<provisioner::api::TokenCache> token_cache_ =
      std::make_shared<provisioner::api::TokenCache>(std::chrono::hours(1));
  std::unique_ptr<provisioner::http::ApiServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::map<std::string, std::string> tokens_;
  std::filesystem::path store_dir_;
  images::TrustedKeys trusted_keys_;
  std::shared_ptr<provisioner::api::KeyRing> key_ring_ =
      std::make_shared<provisioner::api::KeyRing>();
  std::shared_ptr<workflows::Engine> engine_;
  std::shared_ptr<workflows::Sweeper> sweeper_;
};

}  // namespace testing
