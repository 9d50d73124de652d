#include "support/service_fixture.hpp"

#include <catch2/catch.hpp>

#include "common/secret_box.hpp"
#include "images/artifact_store.hpp"
#include "inventory/migrations.hpp"
#include "provisioner/service/campaign_kick.hpp"
#include "support/test_database.hpp"
#include "workflows/discovery.hpp"
#include "workflows/engine.hpp"

namespace testing {
namespace {

const char* kTestKey = "101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f";

template <class T>
T orFail(common::Result<T> r, const char* what) {
  if (!r) FAIL(what << ": " << r.error().message);
  return std::move(r).value();
}

HttpResult toResult(const httplib::Result& r) {
  if (!r) FAIL("HTTP request failed: " << httplib::to_string(r.error()));
  HttpResult out;
  out.status = r->status;
  out.body = r->body;
  out.content_type = r->get_header_value("Content-Type");
  out.headers = r->headers;
  return out;
}

// Stands in for a workflow (the node lifecycle, the campaign controller): its one step waits
// (for an hour, or a signal), so a test sees runs started and signalled without any BMC work.
workflows::WorkflowDef waitingWorkflow(const std::string& kind) {
  workflows::StepDef wait;
  wait.name = "wait";
  wait.run = [](workflows::StepContext& ctx) {
    return workflows::StepOutcome::waitUntil(ctx.now() + std::chrono::hours(1), "test");
  };
  return workflows::WorkflowDef{kind, "wait", {wait}, ""};
}

}  // namespace

nlohmann::json HttpResult::json() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) FAIL("response is not JSON: " << body);
  return j;
}

ServiceFixture::ServiceFixture() : ServiceFixture(ServiceFixtureOptions{}) {}

ServiceFixture::ServiceFixture(ServiceFixtureOptions fixture_options) : url_(freshDatabaseUrl()) {
  auto files = orFail(inventory::loadMigrations(migrationsDir()), "load migrations");
  orFail(inventory::applyMigrations(url_, files), "apply migrations");
  db_ = orFail(inventory::Database::connect(url_, 4), "connect");
  metrics_ = std::make_shared<provisioner::http::MetricsRegistry>();
  provisioner::http::ServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.threads = 4;
  options.max_body_bytes = 1 << 20;
  server_ = std::make_unique<provisioner::http::ApiServer>(
      options, provisioner::api::makeAuthenticator(db_, token_cache_),
      provisioner::api::makeAuditSink(db_), metrics_);
  auto box = orFail(common::SecretBox::fromKeyText(kTestKey), "key");
  store_dir_ = std::filesystem::temp_directory_path() /
               ("provisioner-store-" + common::sha256Hex(common::randomBytes(8)).substr(0, 12));
  auto store = orFail(images::ArtifactStore::open(store_dir_), "artifact store");
  provisioner::api::ApiContext context{
      db_,
      std::make_shared<const common::SecretBox>(box),
      files,
      metrics_,
      std::string(PROVISIONER_TEST_SOURCE_DIR) + "/docs/openapi.yaml",
      token_cache_,
      store,
      key_ring_,
      {},
      nullptr,
      nullptr,
      {},
      nullptr};
  context.health_clock = fixture_options.health_clock;
  if (fixture_options.with_engine) {
    engine_ = std::make_shared<workflows::Engine>(db_, workflows::systemClock());
    engine_->registerWorkflow(waitingWorkflow("node_lifecycle"));
    engine_->registerWorkflow(waitingWorkflow(provisioner::service::kCampaignControllerKind));
    workflows::SweepOptions sweep_options;
    sweep_options.max_in_flight = 4;
    sweep_options.probe_timeout = std::chrono::milliseconds(2000);
    sweeper_ = std::make_shared<workflows::Sweeper>(db_, engine_, sweep_options);
    context.engine = engine_;
    context.sweeper = sweeper_;
    context.campaign_kick = provisioner::service::engineCampaignKick(engine_);
  }
  port_ = orFail(server_->bind(), "bind");
  context.boot.public_url = publicUrl();
  context.boot.retry_seconds = 5;
  provisioner::api::registerRoutes(*server_, context);
  thread_ = std::thread([this] { server_->run(); });
  for (const char* role : {"viewer", "procurement", "asset", "operator", "admin"}) {
    auto issued = orFail(provisioner::api::issueToken(*db_, std::string("test-") + role, role),
                         "issue token");
    tokens_[role] = issued.secret;
  }
}

ServiceFixture::~ServiceFixture() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
  if (sweeper_) sweeper_->stop();
  if (engine_) engine_->stop();
  std::error_code ec;
  std::filesystem::remove_all(store_dir_, ec);
}

void ServiceFixture::trustKey(const images::PublicKey& key) {
  trusted_keys_.add(key);
  key_ring_->replace(trusted_keys_);
}

HttpResult ServiceFixture::get(const std::string& path, const std::string& role,
                               const httplib::Headers& extra) {
  httplib::Client client("127.0.0.1", port_);
  httplib::Headers headers = extra;
  headers.emplace("Authorization", "Bearer " + token(role));
  return toResult(client.Get(path.c_str(), headers));
}

HttpResult ServiceFixture::send(const std::string& method, const std::string& path,
                                const std::string& body, const std::string& role,
                                const std::string& content_type, const httplib::Headers& extra) {
  httplib::Client client("127.0.0.1", port_);
  httplib::Headers headers = extra;
  if (!role.empty()) headers.emplace("Authorization", "Bearer " + token(role));
  if (method == "POST")
    return toResult(client.Post(path.c_str(), headers, body, content_type.c_str()));
  if (method == "PUT")
    return toResult(client.Put(path.c_str(), headers, body, content_type.c_str()));
  if (method == "PATCH") {
    return toResult(client.Patch(path.c_str(), headers, body, content_type.c_str()));
  }
  if (method == "DELETE") {
    return toResult(client.Delete(path.c_str(), headers, body, content_type.c_str()));
  }
  if (method == "GET") return toResult(client.Get(path.c_str(), headers));
  FAIL("unsupported method " << method);
  return {};
}

HttpResult ServiceFixture::anonymous(const std::string& method, const std::string& path,
                                     const std::string& body, const httplib::Headers& headers) {
  httplib::Client client("127.0.0.1", port_);
  if (method == "GET") return toResult(client.Get(path.c_str(), headers));
  return toResult(client.Post(path.c_str(), headers, body, "application/json"));
}

}  // namespace testing
