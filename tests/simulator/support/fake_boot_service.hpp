// A fake provisioning service for the simulated hosts: the boot endpoints (iPXE scripts rendered
// by the real images:: renderer, artifacts by digest) and the agent API, minimal but checked with
// the agent's protocol parsers, on an ephemeral 127.0.0.1 port. It records what it was asked.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace sim::test {

class FakeBootService {
 public:
  static constexpr const char* kNodeId = "7";
  static constexpr std::int64_t kTaskId = 70;
  static constexpr const char* kMonitorCredential = "mon_sim_credential";

  FakeBootService();
  ~FakeBootService();
  FakeBootService(const FakeBootService&) = delete;
  FakeBootService& operator=(const FakeBootService&) = delete;

  std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The next `count` script fetches get a wait-and-retry script of `seconds`.
  void answerWaitScripts(int count, int seconds);
  // Every script fetch gets the local-disk script.
  void answerLocalDisk();
  // The kernel served no longer matches the digest in the script.
  void corruptKernel();
  // The next `count` artifact fetches are answered 503, as by a replica going down behind the
  // service's address.
  void failArtifacts(int count);
  // The task is a wipe (agent/wipe.hpp) with this seed instead of the default burn-in.
  void answerWipeTask(std::uint64_t seed);

  struct Record {
    std::vector<std::string> scriptMacs;  // the mac= of each script fetch, in order
    std::vector<std::string> artifacts;   // "kernel" / "initrd", in order (served ones)
    int refusedArtifacts = 0;             // answered 503 (failArtifacts)
    std::vector<std::string> mintedTokens;
    std::vector<std::string> registerTokens;    // the bearer each registration carried
    nlohmann::json facts;                       // the last registration's facts
    std::vector<nlohmann::json> results;        // accepted results
    std::vector<std::string> invalid;           // bodies the protocol parsers refused
    int enrolments = 0;                         // monitor credentials handed out
    std::vector<nlohmann::json> healthBatches;  // batches posted with the credential, in order
    int healthRefused = 0;                      // batches posted without it
  };
  Record record() const;

 private:
  void serveScript(const httplib::Request& req, httplib::Response& res);
  void serveArtifact(const httplib::Request& req, httplib::Response& res);
  void agentCall(const std::string& name, const httplib::Request& req, httplib::Response& res);
  void registerNode(const httplib::Request& req, httplib::Response& res);
  void postResult(const httplib::Request& req, httplib::Response& res);
  void postHealth(const httplib::Request& req, httplib::Response& res);

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string kernel_;
  std::string initrd_;
  mutable std::mutex mutex_;
  int waitScripts_ = 0;
  std::optional<std::uint64_t> wipeSeed_;
  int waitSeconds_ = 1;
  bool localDisk_ = false;
  bool corrupt_ = false;
  int failArtifacts_ = 0;
  Record record_;
};

}  // namespace sim::test
