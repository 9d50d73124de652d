// The REST API v1: route registration and the database-backed auth and audit it runs with.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "common/secret_box.hpp"
#include "inventory/access.hpp"
#include "inventory/database.hpp"
#include "inventory/migrations.hpp"
#include "provisioner/api/token_cache.hpp"
#include "provisioner/http/metrics.hpp"
#include "provisioner/http/server.hpp"

namespace images {
class ArtifactStore;
}  // namespace images

namespace workflows {
class Clock;
class Engine;
class Sweeper;
}  // namespace workflows

namespace provisioner::api {

class KeyRing;

// How nodes boot: the URLs their iPXE scripts and kernel command lines carry, and token lifetimes.
struct BootSettings {
  std::string public_url;       // how nodes reach this service, e.g. "http://10.0.0.1:8080"
  std::string mirror_url;       // when set, artifacts are fetched from MIRROR/sha256/<hex> instead
  int boot_token_ttl_s = 3600;  // a rendered script's one-time token
  int session_token_ttl_s = 86400;      // the agent's token for the rest of its task
  int retry_seconds = 30;               // what an unknown or not-yet-ready node waits
  std::string wipe_channel = "wipe";    // the channel a decommission's wipe task boots from
  double wipe_min_gpu_coverage = 0.95;  // judged when the wipe task's result arrives
};

struct ApiContext {
  inventory::DatabasePtr db;
  std::shared_ptr<const common::SecretBox> secrets;
  std::vector<inventory::MigrationFile> migrations;  // for /readyz
  std::shared_ptr<http::MetricsRegistry> metrics;
  std::string openapi_path;                 // docs/openapi.yaml, served at /api/v1/openapi.yaml
  std::shared_ptr<TokenCache> token_cache;  // cleared when a token is revoked; may be null
  std::shared_ptr<images::ArtifactStore> artifacts;  // null: no image routes
  std::shared_ptr<KeyRing> trusted_keys;             // keys images must be signed with (null: none)
  BootSettings boot;
  std::shared_ptr<workflows::Engine> engine;    // null: discovery and node operations answer 503
  std::shared_ptr<workflows::Sweeper> sweeper;  // null: sweeps answer 503
  // Makes campaign `id`'s controller run go (service/campaign_kick.hpp); null: campaign start,
  // resume and rollback answer 503.
  std::function<common::Result<void>(inventory::Id campaign_id)> campaign_kick;
  std::shared_ptr<workflows::Clock> clock;  // campaign times (the engine's); null: system clock
  // PEM of the sanitization certificates' signing key, served without a token at
  // /api/v1/certificates/public-key; empty: that route answers 503.
  std::string certificate_public_key_pem = {};
  // The GPU health history's "now" (the ingest's future check, a query's default end); null: the
  // system clock. Sped up only for simulated fleets (ServiceOptions::health_time_scale).
  std::shared_ptr<workflows::Clock> health_clock = {};
};

// Registers every route of the service (health, metrics, API v1) on `server`.
void registerRoutes(http::ApiServer& server, const ApiContext& context);

// Bearer tokens checked against their SHA-256 hashes in the inventory, through `cache` if given.
std::shared_ptr<http::Authenticator> makeAuthenticator(inventory::DatabasePtr db,
                                                       std::shared_ptr<TokenCache> cache = nullptr);
// Audit records appended to the inventory's audit log.
std::shared_ptr<http::AuditSink> makeAuditSink(inventory::DatabasePtr db);

struct IssuedToken {
  inventory::ApiToken token;
  std::string secret;  // shown once, never stored
};
// Creates a token with a fresh 256-bit secret; only its hash is stored.
common::Result<IssuedToken> issueToken(inventory::Database& db, const std::string& name,
                                       const std::string& role);

}  // namespace provisioner::api
