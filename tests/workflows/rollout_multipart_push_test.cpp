// A node's firmware update by multipart push (install_method multipart_push) against a simulated
// DGX H100 BMC over HTTP and a real PostgreSQL: the package file streamed from the artifact store
// to the BMC's MultipartHttpPushUri, the task followed and the version verified as with
// SimpleUpdate; a damaged stored file refused before the intent; a resumed run adopts the push
// already running instead of pushing again.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "images/artifact_store.hpp"
#include "lifecycle_b_bench.hpp"
#include "rollout/node_steps.hpp"

namespace {

using lifecycle_b::Bench;
using lifecycle_b::BenchOptions;
using nlohmann::json;
using workflows::StepContext;
using workflows::StepOutcome;
using Kind = StepOutcome::Kind;
using std::chrono::seconds;
namespace lc = workflows::lifecycle;
namespace ro = workflows::rollout;

const char* kBmcMember = "/redfish/v1/UpdateService/FirmwareInventory/HostBMC_0";

std::string describe(const StepOutcome& o) {
  return "kind " + std::to_string(static_cast<int>(o.kind)) + " step " + o.step + " reason " +
         o.reason + " waiting_for " + o.waiting_for + ": " + o.message;
}

// An artifact store in a temporary folder holding simulated package files (JSON naming the
// version the simulator installs).
struct Store {
  Store()
      : root(std::filesystem::temp_directory_path() /
             ("rollout-push-" + std::to_string(::getpid()) + "-" + std::to_string(next++))) {
    store = images::ArtifactStore::open(root).value();
  }
  ~Store() { std::filesystem::remove_all(root); }
  // The stored package file of `version`: its digest and size.
  std::pair<std::string, std::int64_t> add(const std::string& version) {
    const auto file = root / ("in-" + version);
    const std::string bytes = json{{"version", version}}.dump();
    std::ofstream(file, std::ios::binary) << bytes;
    auto digest = images::sha256OfFile(file).value();
    REQUIRE(store->importFile(file, digest).ok());
    std::filesystem::remove(file);
    return {digest, static_cast<std::int64_t>(bytes.size())};
  }
  static inline int next = 0;
  std::filesystem::path root;
  std::shared_ptr<images::ArtifactStore> store;
};

json pushedBmc(const std::string& to, const std::pair<std::string, std::int64_t>& file) {
  return {{"component", "bmc"},
          {"rule", {{"pattern", "HostBMC"}}},
          {"from", "23.11.21"},
          {"to", to},
          // Never fetched: a push sends the stored file itself.
          {"image_uri", "http://127.0.0.1:9/not-served/" + to},
          {"apply", "immediate"},
          {"force", false},
          {"install",
           {{"method", "multipart_push"},
            {"sha256", file.first},
            {"size", file.second},
            {"simple_update_fallback", false}}},
          {"rollback", nullptr}};
}

struct Rollout {
  Rollout(Bench& shared, std::shared_ptr<images::ArtifactStore> artifacts) : bench(shared) {
    env.life = bench.env();
    env.life.settings.timings.time_scale = 1;
    env.settings.artifacts = std::move(artifacts);
  }
  StepOutcome run() {
    return bench.run("flash",
                     [this](const lc::Env&, StepContext& ctx) { return ro::flashStep(env, ctx); });
  }
  StepOutcome drive(int max_calls = 60) {
    StepOutcome outcome;
    for (int i = 0; i < max_calls; ++i) {
      outcome = run();
      if (outcome.kind != Kind::kWait) return outcome;
      bench.advance(seconds(10));
    }
    return outcome;
  }
  std::string bmcVersion() const {
    const json firmware = bench.snapshot()["firmware"];
    if (!firmware.contains(kBmcMember)) return "23.11.21";
    return firmware[kBmcMember].value("version", "");
  }
  Bench& bench;
  ro::Env env;
};

BenchOptions bmcNode() {
  BenchOptions options;
  options.system_path = "/redfish/v1/Systems/DGX";
  return options;
}

}  // namespace

TEST_CASE("a multipart_push package is pushed from the store, followed and verified",
          "[rollout][multipart]") {
  Store store;
  Bench bench(bmcNode());
  Rollout r(bench, store.store);
  bench.data()["components"] = json::array({pushedBmc("24.10.1", store.add("24.10.1"))});

  auto first = r.run();
  INFO(describe(first));
  REQUIRE(first.kind == Kind::kWait);
  CHECK(first.waiting_for == "firmware_task");
  CHECK(bench.data()["flash"]["current"]["method"] == "multipart_push");
  CHECK(bench.requestCount("POST", "/redfish/v1/UpdateService/upload") == 1);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 0);

  auto done = r.drive();
  INFO(describe(done));
  INFO(bench.data().dump());
  REQUIRE(done.kind == Kind::kNext);
  CHECK(done.step == "quick_check");
  CHECK(r.bmcVersion() == "24.10.1");
  CHECK(bench.requestCount("POST", "/redfish/v1/UpdateService/upload") == 1);
  CHECK(bench.data()["flash"]["done"][0]["flashed"] == true);
  CHECK(bench.data()["flash"]["done"][0]["method"] == "multipart_push");
  const json snapshot = bench.snapshot();
  CHECK(snapshot["firmwareUpdates"]["MultipartHttpPushUri"] == 1);
  CHECK(snapshot["firmwareUpdates"]["SimpleUpdate"] == 0);
}

TEST_CASE("a damaged package file is refused before the intent, nothing pushed",
          "[rollout][multipart]") {
  Store store;
  Bench bench(bmcNode());
  Rollout r(bench, store.store);
  const auto file = store.add("24.10.1");
  bench.data()["components"] = json::array({pushedBmc("24.10.1", file)});
  {
    // Same size, other bytes: only the digest tells.
    std::filesystem::permissions(store.store->pathFor(file.first),
                                 std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    std::ofstream damaged(store.store->pathFor(file.first), std::ios::binary | std::ios::trunc);
    damaged << std::string(static_cast<std::size_t>(file.second), 'x');
  }
  auto outcome = r.run();
  INFO(describe(outcome));
  REQUIRE(outcome.kind == Kind::kFail);
  CHECK(outcome.reason == "package_file_invalid");
  CHECK_FALSE(bench.data()["flash"]["current"].contains("intent_at"));
  CHECK(bench.requestCount("POST", "/redfish/v1/UpdateService/upload") == 0);
  CHECK(bench.snapshot()["tasks"].empty());
}

TEST_CASE("a run resumed after a crash adopts the running push instead of pushing again",
          "[rollout][multipart]") {
  Store store;
  Bench bench(bmcNode());
  Rollout r(bench, store.store);
  bench.data()["components"] = json::array({pushedBmc("24.10.1", store.add("24.10.1"))});
  REQUIRE(r.run().kind == Kind::kWait);
  REQUIRE(bench.requestCount("POST", "/redfish/v1/UpdateService/upload") == 1);
  // What survives the crash is the intent (with the method), not the task it learnt.
  bench.data()["flash"]["current"].erase("task");
  bench.data()["flash"]["current"].erase("started_at");

  auto done = r.drive();
  INFO(describe(done));
  REQUIRE(done.kind == Kind::kNext);
  CHECK(bench.requestCount("POST", "/redfish/v1/UpdateService/upload") == 1);
  CHECK(bench.snapshot()["tasks"].size() == 1);
  CHECK(r.bmcVersion() == "24.10.1");
}

namespace {

// An HPE iLO 5: its UpdateService offers SimpleUpdate and a raw HttpPushUri, no multipart push.
BenchOptions iloNode() {
  BenchOptions options;
  options.profile = "hpe-dl385";
  options.system_path = "/redfish/v1/Systems/1";
  return options;
}

const char* kIloMember = "/redfish/v1/UpdateService/FirmwareInventory/1";

json pushedIlo(const std::pair<std::string, std::int64_t>& file, bool fallback) {
  json c = pushedBmc("2.78", file);
  c["rule"] = {{"pattern", "iLO"}};
  c["from"] = "2.72 Sep 04 2022";
  // What a SimpleUpdate fetches; the simulator takes the version from the query.
  c["image_uri"] = "http://127.0.0.1:9/ilo5.bin?version=2.78";
  c["install"]["simple_update_fallback"] = fallback;
  return c;
}

}  // namespace

TEST_CASE("a BMC without MultipartHttpPushUri gets the package by SimpleUpdate when it allows",
          "[rollout][multipart]") {
  Store store;
  Bench bench(iloNode());
  Rollout r(bench, store.store);
  bench.data()["components"] = json::array({pushedIlo(store.add("2.78"), true)});

  auto first = r.run();
  INFO(describe(first));
  REQUIRE(first.kind == Kind::kWait);
  CHECK(first.waiting_for == "firmware_task");
  CHECK(bench.data()["flash"]["current"]["method"] == "simple_update");
  CHECK(bench.data()["flash"]["current"]["method_fallback"] == true);
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 1);
  CHECK(bench.requestCount("POST", "/cgi-bin/uploadFile") == 0);

  auto done = r.drive();
  INFO(describe(done));
  INFO(bench.data().dump());
  REQUIRE(done.kind == Kind::kNext);
  const json snapshot = bench.snapshot();
  CHECK(snapshot["firmware"][kIloMember].value("version", "") == "2.78");
  CHECK(snapshot["firmwareUpdates"]["SimpleUpdate"] == 1);
  CHECK(snapshot["firmwareUpdates"]["HttpPushUri"] == 0);
  CHECK(snapshot["firmwareUpdates"]["MultipartHttpPushUri"] == 0);
  CHECK(bench.data()["flash"]["done"][0]["method"] == "simple_update");
}

TEST_CASE("a BMC without MultipartHttpPushUri fails the node when the package forbids SimpleUpdate",
          "[rollout][multipart]") {
  Store store;
  Bench bench(iloNode());
  Rollout r(bench, store.store);
  bench.data()["components"] = json::array({pushedIlo(store.add("2.78"), false)});

  auto outcome = r.run();
  INFO(describe(outcome));
  REQUIRE(outcome.kind == Kind::kFail);
  CHECK(outcome.reason == "multipart_push_unsupported");
  CHECK_FALSE(bench.data()["flash"]["current"].contains("intent_at"));
  CHECK(bench.requestCount("POST", "SimpleUpdate") == 0);
  CHECK(bench.requestCount("POST", "/cgi-bin/uploadFile") == 0);
  CHECK(bench.snapshot()["tasks"].empty());
}
