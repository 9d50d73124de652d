#include "provisioner/service/app.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "bmc_command.hpp"
#include "cert_command.hpp"
#include "common/data_paths.hpp"
#include "common/secret_box.hpp"
#include "image_local_commands.hpp"
#include "images/artifact_store.hpp"
#include "images/signing.hpp"
#include "inventory/access.hpp"
#include "inventory/gpu_health.hpp"
#include "inventory/migrations.hpp"
#include "provisioner/api/api.hpp"
#include "provisioner/api/key_ring.hpp"
#include "provisioner/cli/ctl.hpp"
#include "provisioner/http/logging.hpp"
#include "provisioner/http/rbac.hpp"
#include "provisioner/service/campaign_kick.hpp"
#include "provisioner/service/config_file.hpp"
#include "provisioner/service/options.hpp"
#include "provisioner/service/private_postgres.hpp"
#include "redfish/transport.hpp"
#include "workflow_runtime.hpp"
#include "workflows/decommission/certificate_key.hpp"

namespace provisioner::service {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 64;
// How long a checked API token is trusted without asking the database again.
constexpr std::chrono::seconds kTokenCacheTtl{5};

int report(const common::Error& e) {
  std::cerr << "provisioner: " << e.message;
  if (!e.field.empty()) std::cerr << " (" << e.field << ")";
  std::cerr << " [" << e.code << "]\n";
  return e.kind == common::ErrorKind::kInvalidArgument ? kExitUsage : kExitFailure;
}

// What every database-using command needs: a database (maybe private) with current migrations.
struct Runtime {
  std::unique_ptr<PrivatePostgres> private_pg;
  inventory::DatabasePtr db;
  std::vector<inventory::MigrationFile> migrations;
};

// Data files of the installed layout (share/provisioner/ beside bin/); the source tree when run
// from the build dir (common/data_paths.hpp).
std::string installedData(const std::string& sub, const char* source_path) {
  return common::resolveDataPath(
      {std::string(PROVISIONER_DATA_FROM_BIN) + "/" + sub, source_path, PROVISIONER_BUILD_DIR});
}

std::string migrationsDir(const ServiceOptions& o) {
  return o.migrations_dir.empty() ? installedData("migrations", PROVISIONER_SOURCE_MIGRATIONS_DIR)
                                  : o.migrations_dir;
}

common::Result<Runtime> openRuntime(const ServiceOptions& o) {
  Runtime rt;
  std::string url = o.database_url;
  if (url.empty()) {
    // The keys kept beside the database, which its server's user must never read.
    const std::filesystem::path state(o.state_dir);
    std::vector<std::string> secrets{
        (state / "secret.key").string(),
        (state / workflows::decommission::kCertificateKeyFile).string()};
    if (!o.secret_key_file.empty()) secrets.push_back(o.secret_key_file);
    auto pg = PrivatePostgres::start(o.state_dir, secrets);
    if (!pg) return common::fail(std::move(pg).error());
    rt.private_pg = std::move(pg).value();
    url = rt.private_pg->url();
  }
  auto files = inventory::loadMigrations(migrationsDir(o));
  if (!files) return common::fail(std::move(files).error());
  rt.migrations = std::move(files).value();
  auto applied = inventory::applyMigrations(url, rt.migrations);
  if (!applied) return common::fail(std::move(applied).error());
  if (!applied->applied.empty()) {
    spdlog::info("applied {} migration(s), {} already current", applied->applied.size(),
                 applied->already_applied.size());
  }
  auto db = inventory::Database::connect(url, o.db_pool_size);
  if (!db) return common::fail(std::move(db).error());
  rt.db = std::move(db).value();
  return rt;
}

// The key for secrets at rest: flag, environment, or a key file created on first use.
common::Result<common::SecretBox> loadSecretBox(const ServiceOptions& o) {
  if (!o.secret_key_file.empty()) return common::SecretBox::fromKeyFile(o.secret_key_file);
  if (const char* k = std::getenv("PROVISIONER_SECRET_KEY"); k != nullptr && *k != '\0') {
    return common::SecretBox::fromKeyText(k);
  }
  const auto path = std::filesystem::path(o.state_dir) / "secret.key";
  if (!std::filesystem::exists(path)) {
    std::filesystem::create_directories(path.parent_path());
    const mode_t old = umask(077);
    std::ofstream(path) << common::base64Encode(common::randomBytes(32)) << "\n";
    umask(old);
    spdlog::warn("created a new secret key at {}; back it up: sealed BMC secrets need it",
                 path.string());
  }
  return common::SecretBox::fromKeyFile(path.string());
}

common::Result<std::pair<std::string, int>> parseListen(const std::string& listen) {
  auto colon = listen.rfind(':');
  int port = -1;
  if (colon != std::string::npos) {
    try {
      port = std::stoi(listen.substr(colon + 1));
    } catch (...) {
      port = -1;
    }
  }
  if (colon == std::string::npos || port < 0 || port > 65535) {
    return common::fail(common::invalidArgument(
        "invalid_flag", "--listen must be HOST:PORT, e.g. 127.0.0.1:8080", "--listen"));
  }
  return std::make_pair(listen.substr(0, colon), port);
}

// SIGTERM/SIGINT/SIGHUP are blocked in every thread (threads inherit the mask when created, so
// serve() blocks them before it starts any); one watcher thread turns TERM and INT into a
// graceful stop and HUP into a reload.
sigset_t blockServiceSignals() {
  sigset_t set{};
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);  // our own wake-up when the server ends by itself
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

class SignalWatcher {
 public:
  SignalWatcher(std::function<void()> on_stop, std::function<void()> on_reload)
      : set_(blockServiceSignals()) {
    thread_ = std::thread([this, stop = std::move(on_stop), reload = std::move(on_reload)] {
      for (;;) {
        int sig = 0;
        sigwait(&set_, &sig);
        if (sig == SIGHUP) {
          reload();
          continue;
        }
        if (sig != SIGUSR1) {
          spdlog::info("received signal {}, shutting down gracefully", sig);
          stop();
        }
        return;
      }
    });
  }
  ~SignalWatcher() {
    pthread_kill(thread_.native_handle(), SIGUSR1);
    thread_.join();
  }

 private:
  sigset_t set_{};
  std::thread thread_;
};

std::string orUnderState(const ServiceOptions& o, const std::string& value, const char* sub) {
  return value.empty() ? (std::filesystem::path(o.state_dir) / sub).string() : value;
}

// The public keys images must be signed with; an empty folder means no image can be registered
// yet (said loudly, not refused: the service has more to do than images).
common::Result<images::TrustedKeys> loadTrustedKeys(const ServiceOptions& o) {
  const std::string dir = orUnderState(o, o.trusted_keys_dir, "trusted-keys");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  images::TrustedKeys keys;
  PROV_TRY(keys.addDirectory(dir));
  if (keys.empty()) {
    spdlog::warn("no image signing keys in {}: image registration will refuse every image", dir);
  } else {
    spdlog::info("trusting {} image signing key(s) from {}", keys.keyIds().size(), dir);
  }
  return keys;
}

// SIGHUP: the keys folder read again. A folder that no longer reads keeps the keys in use.
void reloadTrustedKeys(const ServiceOptions& o, api::KeyRing& ring) {
  auto keys = loadTrustedKeys(o);
  if (!keys) {
    spdlog::error("reload of image signing keys failed, keeping the current ones: {} ({})",
                  keys.error().message, keys.error().field);
    return;
  }
  ring.replace(std::move(*keys));
}

api::BootSettings bootSettings(const ServiceOptions& o, const std::string& host, int port) {
  api::BootSettings boot;
  boot.public_url =
      o.public_url.empty() ? "http://" + host + ":" + std::to_string(port) : o.public_url;
  while (!boot.public_url.empty() && boot.public_url.back() == '/') boot.public_url.pop_back();
  boot.mirror_url = o.artifact_mirror_url;
  while (!boot.mirror_url.empty() && boot.mirror_url.back() == '/') boot.mirror_url.pop_back();
  boot.boot_token_ttl_s = o.boot_token_ttl_s;
  boot.wipe_channel = o.wipe_channel;
  boot.wipe_min_gpu_coverage = o.wipe_min_gpu_coverage;
  if (o.public_url.empty() && (host == "0.0.0.0" || host == "::" || host == "[::]")) {
    spdlog::warn(
        "listening on {} without --public-url: boot scripts will tell nodes to reach {}, "
        "which they cannot; set --public-url",
        host, boot.public_url);
  }
  return boot;
}

int serve(const ServiceOptions& o) {
  blockServiceSignals();
  auto listen = parseListen(o.listen);
  if (!listen) return report(listen.error());
  auto box = loadSecretBox(o);
  if (!box) return report(box.error());
  auto rt = openRuntime(o);
  if (!rt) return report(rt.error());
  auto store = images::ArtifactStore::open(orUnderState(o, o.image_store_dir, "images"));
  if (!store) return report(store.error());
  auto trusted = loadTrustedKeys(o);
  if (!trusted) return report(trusted.error());
  auto key_ring = std::make_shared<api::KeyRing>(std::move(*trusted));
  // The same state_dir the decommission workflow signs with, so the key served verifies them.
  auto certificate_key = workflows::decommission::loadOrCreateSigningKey(o.state_dir);
  if (!certificate_key) return report(certificate_key.error());

  auto metrics = std::make_shared<http::MetricsRegistry>();
  http::ServerOptions server_options;
  server_options.host = listen->first;
  server_options.port = listen->second;
  server_options.threads = o.http_threads;
  auto token_cache = std::make_shared<api::TokenCache>(kTokenCacheTtl);
  http::ApiServer server(server_options, api::makeAuthenticator(rt->db, token_cache),
                         api::makeAuditSink(rt->db), metrics);
  auto secrets = std::make_shared<const common::SecretBox>(*box);
  api::ApiContext context{rt->db,
                          secrets,
                          rt->migrations,
                          metrics,
                          installedData("openapi.yaml", PROVISIONER_SOURCE_OPENAPI_FILE),
                          token_cache,
                          *store,
                          key_ring,
                          {},
                          nullptr,
                          nullptr,
                          {},
                          nullptr};
  context.certificate_public_key_pem = certificate_key->public_pem;
  context.health_clock = healthClock(o);
  auto port = server.bind();
  if (!port) return report(port.error());
  // The boot URLs need the bound port (an ephemeral one in tests), so routes come after bind().
  context.boot = bootSettings(o, listen->first, *port);
  std::unique_ptr<WorkflowRuntime> workflows;
  if (o.workflows) {
    auto made = makeWorkflowRuntime(o, rt->db, secrets, context.boot.public_url, *metrics, *store,
                                    context.health_clock);
    if (!made) return report(made.error());
    workflows = std::move(made).value();
    context.engine = workflows->engine;
    context.sweeper = workflows->sweeper;
    context.campaign_kick = engineCampaignKick(workflows->engine);
  }
  api::registerRoutes(server, context);
  spdlog::info("serving on http://{}:{}", listen->first, *port);
  {
    SignalWatcher watcher([&server] { server.stop(); },
                          [&o, &key_ring] { reloadTrustedKeys(o, *key_ring); });
    if (workflows) workflows->start();
    server.run();
  }
  if (workflows) workflows->stop();
  spdlog::info("stopped");
  return 0;
}

int migrate(const ServiceOptions& o) {
  auto rt = openRuntime(o);
  if (!rt) return report(rt.error());
  std::cout << "migrations current (" << rt->migrations.size() << " files)\n";
  return 0;
}

// `provisioner health-compact`: what the upkeep's compaction does, now (and for a day given).
int healthCompact(const ServiceOptions& o) {
  auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  if (!o.as_of.empty()) {
    auto day = inventory::health::parseUtc(o.as_of + "T00:00:00Z");
    if (!day) {
      return report(
          common::invalidArgument("invalid_flag", "--as-of must be YYYY-MM-DD", "--as-of"));
    }
    now = *day;
  }
  auto rt = openRuntime(o);
  if (!rt) return report(rt.error());
  auto done = inventory::compactHealthHistory(*rt->db, inventory::health::dayOf(now), {});
  if (!done) return report(done.error());
  std::cout << "compacted " << done->compacted.size() << " day(s), " << done->readings
            << " reading(s)";
  for (const auto& name : done->compacted) std::cout << " " << name;
  std::cout << "\n";
  return 0;
}

int tokenCreate(const ServiceOptions& o) {
  auto role = http::parseRole(o.token_role);
  if (!role) return report(role.error());
  auto rt = openRuntime(o);
  if (!rt) return report(rt.error());
  auto issued = api::issueToken(*rt->db, o.token_name, o.token_role);
  if (!issued) return report(issued.error());
  std::cerr << "created token " << issued->token.id << " '" << issued->token.name << "' with role "
            << issued->token.role << "; it is shown only now:\n";
  std::cout << issued->secret << "\n";
  return 0;
}

int tokenList(const ServiceOptions& o) {
  auto rt = openRuntime(o);
  if (!rt) return report(rt.error());
  auto tokens = inventory::listTokens(*rt->db);
  if (!tokens) return report(tokens.error());
  for (const auto& t : *tokens) {
    std::cout << t.id << "\t" << t.name << "\t" << t.role << "\t" << t.created_at << "\t"
              << (t.revoked_at ? "revoked " + *t.revoked_at : "active") << "\n";
  }
  return 0;
}

int tokenRevoke(const ServiceOptions& o) {
  auto rt = openRuntime(o);
  if (!rt) return report(rt.error());
  auto revoked = inventory::revokeToken(*rt->db, *o.token_id);
  if (!revoked) return report(revoked.error());
  std::cout << "revoked token " << revoked->id << " '" << revoked->name << "'\n";
  return 0;
}

// `provisioner bmc ...` talks to one BMC through the libcurl transport; no database involved.
int bmc(std::vector<std::string> args) {
  redfish::Transport transport;
  auto connect = [&transport](const BmcConnectOptions& o) -> std::shared_ptr<redfish::Client> {
    redfish::BmcEndpoint endpoint{o.url, o.username, o.password, {}, {}};
    if (o.insecure) {
      endpoint.tls.mode = redfish::TlsPolicy::Mode::kInsecure;
    } else if (!o.caFile.empty()) {
      endpoint.tls = {redfish::TlsPolicy::Mode::kCaBundle, {}, o.caFile};
    } else if (!o.pinSha256.empty()) {
      endpoint.tls = {redfish::TlsPolicy::Mode::kPinned, o.pinSha256, {}};
    }
    auto client = transport.client(endpoint);
    if (!client) {
      report(client.error());
      return nullptr;
    }
    return *client;
  };
  return runBmcCommand(std::move(args), std::cout, std::cerr, connect);
}

}  // namespace

// `provisioner image ...`: offline commands here; the rest go through the API like provisionerctl.
int image(const std::vector<std::string>& args) {
  const int local = runImageLocalCommand(args, std::cout, std::cerr);
  if (local >= 0) return local;
  std::vector<std::string> ctl_args{"image"};
  ctl_args.insert(ctl_args.end(), args.begin(), args.end());
  return cli::runCtl(ctl_args, std::cout, std::cerr, cli::Environment::fromProcess());
}

int runProvisioner(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "bmc") {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>(
        "provisioner", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
    http::configureJsonLogging(spdlog::level::warn);
    return bmc(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (!args.empty() && args.front() == "cert") {
    return runCertCommand(std::vector<std::string>(args.begin() + 1, args.end()), std::cout,
                          std::cerr);
  }
  if (!args.empty() && args.front() == "image") {
    return image(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  // The settings file first (flags win); `help` reads none, so it works whatever the file holds.
  const bool help = args.empty() || args.front() == "help" || args.front() == "--help";
  auto expanded = help ? common::Result<std::vector<std::string>>(args)
                       : withConfigFile(args, PROVISIONER_DEFAULT_CONFIG_FILE);
  if (!expanded) return report(expanded.error());
  auto options = parseServiceOptions(*expanded);
  if (!options) {
    report(options.error());
    std::cerr << serviceUsage();
    return kExitUsage;
  }
  const ServiceOptions& o = *options;
  const std::string level =
      o.log_level.empty() ? (o.command == "serve" ? "info" : "warn") : o.log_level;
  // Logs go to stderr: stdout belongs to command output (a new token, listings).
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "provisioner", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
  http::configureJsonLogging(spdlog::level::from_str(level));
  if (o.command == "serve") return serve(o);
  if (o.command == "migrate") return migrate(o);
  if (o.command == "health-compact") return healthCompact(o);
  if (o.command == "token create") return tokenCreate(o);
  if (o.command == "token list") return tokenList(o);
  if (o.command == "token revoke") return tokenRevoke(o);
  if (o.command == "help" || o.command == "--help") {
    std::cout << serviceUsage();
    return 0;
  }
  std::cerr << "provisioner: unknown command '" << o.command << "'\n" << serviceUsage();
  return kExitUsage;
}

}  // namespace provisioner::service
