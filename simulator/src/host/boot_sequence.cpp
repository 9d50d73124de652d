#include "host/boot_sequence.hpp"

#include <filesystem>
#include <optional>

#include "agent/monitor.hpp"
#include "host/agent_host.hpp"
#include "host/http_fetch.hpp"
#include "host/ipxe_script.hpp"

namespace sim::host {
namespace {

constexpr std::size_t kMaxScriptBytes = 64 * 1024;
constexpr double kFetchRetrySeconds = 10;  // simulated: iPXE's own pause before asking again
constexpr std::string_view kMacSetting = "${net0/mac}";

std::string firstScriptUrl(const BootJob& job, const std::string& mac) {
  if (job.event.target == "UefiHttp" && !job.event.httpBootUri.empty()) {
    return job.event.httpBootUri;
  }
  return job.settings.serviceUrl + "/boot/ipxe?mac=" + mac;
}

// iPXE fills in the booting NIC's MAC where a retry URL asks for it.
std::string expandMac(std::string url, const std::string& mac) {
  for (auto at = url.find(kMacSetting); at != std::string::npos; at = url.find(kMacSetting)) {
    url.replace(at, kMacSetting.size(), mac);
  }
  return url;
}

AgentLaunch launchFor(const BootJob& job, const Machine& machine) {
  AgentLaunch launch;
  launch.machine = machine;
  launch.caFile = job.settings.caFile;
  launch.timeScale = job.clock->scale();
  if (!job.settings.hostStateDir.empty()) {
    launch.stateDir = job.settings.hostStateDir + "/" + job.event.bmcId;
  }
  launch.monitorIntervalSeconds = job.settings.monitorIntervalSeconds;
  launch.healthClockScale = job.settings.healthClockScale;
  launch.healthClockEpoch = job.settings.healthClockEpoch;
  return launch;
}

class NetworkBoot {
 public:
  explicit NetworkBoot(const BootJob& job) : job_(job), run_(*job.run) {}

  void run() {
    auto machine = job_.lookup(job_.event.bmcId);
    if (!machine) return fail("the machine is unknown: " + machine.error().message);
    if (machine->identity.hostMacs.empty()) return fail("the host has no NIC to boot from");
    const std::string mac = machine->identity.hostMacs.front();
    auto script = fetchBootScript(firstScriptUrl(job_, mac), mac);
    if (!script) return;
    if (script->kind == ScriptKind::kLocalDisk) {
      job_.host->update(run_, [](HostStatus& s) { s.lastBoot = "disk"; });
      log("the script says: boot the local disk");
      return runDiskBoot(job_);
    }
    if (!fetchImages(*script)) return;
    if (startAgent(*machine, *script)) rebootIntoDisk();
  }

 private:
  // The script to act on: wait-and-retry scripts (and failed fetches) are followed, in simulated
  // time, up to the configured limit. Nothing when the boot ended or gave up.
  std::optional<IpxeScript> fetchBootScript(std::string url, const std::string& mac) {
    for (int attempt = 0;; ++attempt) {
      if (!run_.current()) return std::nullopt;
      double wait = kFetchRetrySeconds;
      auto script = fetchScript(url);
      if (script && script->kind != ScriptKind::kRetry) return std::move(*script);
      if (script) {
        wait = script->sleepSeconds;
        if (!script->chainUrl.empty()) url = expandMac(script->chainUrl, mac);
        log("the script says: wait " + std::to_string(script->sleepSeconds) + " s and ask again");
      }
      if (attempt >= job_.settings.maxScriptRetries) {
        fail("no boot script after " + std::to_string(attempt + 1) + " attempt(s)" +
             (script ? std::string() : ": " + lastError_));
        return std::nullopt;
      }
      if (!run_.sleepFor(job_.clock->realDuration(wait))) return std::nullopt;
    }
  }

  common::Result<IpxeScript> fetchScript(const std::string& url) {
    job_.host->update(run_, [](HostStatus& s) { ++s.scriptFetches; });
    log("GET " + url);
    auto fetched = httpGet(url, options(kMaxScriptBytes));
    if (!fetched) return noted(std::move(fetched).error());
    auto script = parseIpxeScript(fetched->body);
    if (!script) return noted(std::move(script).error());
    return script;
  }

  // The kernel and the initrd, both checked. A script with a retry loop starts over after its
  // pause when a download fails or a digest differs (the service behind the address may be
  // another replica by then), up to the configured limit; one without gives up at once.
  bool fetchImages(const IpxeScript& script) {
    for (int attempt = 0;; ++attempt) {
      if (!run_.current()) return false;
      auto why = fetchArtifact("kernel", script.kernelUrl, script.kernelSha256);
      if (why.empty()) why = fetchArtifact("initrd", script.initrdUrl, script.initrdSha256);
      if (why.empty()) return true;
      if (!script.retriesOnFailure || attempt >= job_.settings.maxScriptRetries) {
        fail(why);
        return false;
      }
      log(why + "; the script starts over in " + std::to_string(script.sleepSeconds) + " s");
      job_.host->update(run_, [](HostStatus& s) { ++s.imageRetries; });
      if (!run_.sleepFor(job_.clock->realDuration(script.sleepSeconds))) return false;
    }
  }

  // What went wrong fetching one image ("" when it arrived with the expected digest).
  std::string fetchArtifact(const std::string& what, const std::string& url,
                            const std::string& sha256) {
    log("GET " + url + " (" + what + ")");
    auto fetched = httpGet(url, options(0));
    if (!fetched) return what + ": " + fetched.error().message;
    if (!sha256.empty() && fetched->sha256 != sha256) {
      return what + " checksum mismatch: expected " + sha256 + ", got " + fetched->sha256 +
             ": refusing to boot";
    }
    log(what + ": " + std::to_string(fetched->size) + " bytes, sha256 " + fetched->sha256);
    return "";
  }

  // True when the agent ended well having enrolled the node's monitor (a burn-in that passed its
  // result; a wipe enrols nothing): the image then reboots into the installed OS.
  bool startAgent(const Machine& machine, const IpxeScript& script) {
    AgentLaunch launch = launchFor(job_, machine);
    launch.params = agent::parseKernelCmdline(script.kernelArgs);
    if (!run_.current()) return false;
    job_.host->update(run_, [](HostStatus& s) { s.agent = "running"; });
    const auto started = std::filesystem::file_time_type::clock::now();
    auto code = runHostAgent(launch, run_, [this](std::string line) { log(std::move(line)); });
    if (!code) {
      job_.host->update(run_, [](HostStatus& s) { s.agent = "not_started"; });
      fail("the agent cannot start: " + code.error().message);
      return false;
    }
    const int exit = *code;
    job_.host->update(run_, [exit](HostStatus& s) { s.agent = "exited:" + std::to_string(exit); });
    return exit == 0 && enrolledSince(launch.stateDir, started);
  }

  static bool enrolledSince(const std::string& stateDir, std::filesystem::file_time_type started) {
    if (stateDir.empty()) return false;
    std::error_code ec;
    auto written = std::filesystem::last_write_time(agent::monitorEndpointPath(stateDir), ec);
    return !ec && written >= started;
  }

  // As the burn-in image does once its agent is done (the service's next boot script for the
  // node is its local disk): a warm reboot, counted as a boot, into the OS that runs the monitor.
  void rebootIntoDisk() {
    if (!run_.current()) return;
    log("the burn-in image reboots into the installed OS");
    job_.host->update(run_, [](HostStatus& s) {
      ++s.boots;
      s.lastBoot = "disk";
    });
    runDiskBoot(job_);
  }

  FetchOptions options(std::size_t keepBody) const {
    return FetchOptions{job_.settings.caFile, keepBody, [this] { return run_.current(); }};
  }
  common::Error noted(common::Error error) {
    lastError_ = error.message;
    log(error.message);
    return error;
  }
  void log(std::string line) { job_.host->log(run_, std::move(line)); }
  void fail(const std::string& why) {
    log("boot failed: " + why);
    job_.host->update(run_, [&why](HostStatus& s) { s.error = why; });
  }

  const BootJob& job_;
  BootRun& run_;
  std::string lastError_;
};

}  // namespace

void runNetworkBoot(const BootJob& job) {
  NetworkBoot(job).run();
}

void runDiskBoot(const BootJob& job) {
  if (job.settings.hostStateDir.empty() || !job.run->current()) return;
  auto machine = job.lookup(job.event.bmcId);
  if (!machine) return;
  AgentLaunch launch = launchFor(job, *machine);
  job.host->update(*job.run, [](HostStatus& s) { s.agent = "monitor"; });
  runHostMonitor(launch, *job.run, [&job](std::string line) { job.host->log(*job.run, line); });
}

}  // namespace sim::host
