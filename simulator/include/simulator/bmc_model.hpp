// One simulated BMC's Redfish behaviour, with no I/O: the network engine feeds it requests.
// Built from a vendor profile (a resource tree recorded from real hardware), personalised with
// unique serials, MACs and UUIDs, and with live state: power, boot override, BIOS pending
// settings, firmware update tasks, secure erase, sessions, ETags. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"
#include "simulator/faults.hpp"
#include "simulator/http_types.hpp"
#include "simulator/sim_clock.hpp"

namespace sim {

class Profile;  // a vendor profile: resource tree + vendor behaviour (simulator/profile.hpp)

struct BmcIdentity {
  std::string id;       // fleet-unique, e.g. "r01-n03"
  std::string profile;  // e.g. "dgx-h100"
  std::string manufacturer;
  std::string model;
  std::string chassisSerial;  // what the chassis reports (after a serial fault, the wrong one)
  std::string systemSerial;
  std::string uuid;
  std::string bmcMac;
  std::vector<std::string> gpuSerials;
  std::vector<std::string> gpuUuids;
  std::string gpuModel;  // the first GPU's Model, as the BMC reports it ("H100 80GB HBM3")
  std::vector<std::string> hostMacs;
};

struct BmcCredentials {
  std::string username;
  std::string password;
};

// The host started booting with a one-time (or continuous) network boot in effect.
struct BootEvent {
  std::string bmcId;
  std::string target;       // "Pxe", "UefiHttp", "Cd", "Hdd", "None"
  std::string httpBootUri;  // for UefiHttp, when set
};

// What became of fetching a SimpleUpdate's ImageURI (the fleet's image fetcher does the I/O).
struct ImageDownload {
  enum class Outcome {
    kDownloaded,  // `body` holds what the server sent
    kNotServed,   // nothing answers there (connection refused, unreachable, HTTP 404)
    kFailed,      // a server answered but the download failed (`error`: why)
  };
  Outcome outcome = Outcome::kNotServed;
  std::string body;
  std::string error;
};
// Fetches `uri` and calls `done` exactly once, from any thread, before the model is destroyed.
using ImageFetcher =
    std::function<void(const std::string& uri, std::function<void(ImageDownload)> done)>;

// One FirmwareInventory member as a client would read it now.
struct FirmwareVersion {
  std::string path;
  std::string id;
  std::string name;
  std::string version;
};

class BmcModel {
 public:
  // `seed` makes the personalisation deterministic; `personalise` false serves the recorded
  // tree with its original serials (the static mode used to test against recorded data).
  BmcModel(std::shared_ptr<const Profile> profile, std::string id, std::uint64_t seed,
           BmcCredentials credentials, const SimClock& clock, bool personalise = true);
  ~BmcModel();
  BmcModel(const BmcModel&) = delete;
  BmcModel& operator=(const BmcModel&) = delete;

  HttpResponse handle(const HttpRequest& request);

  BmcIdentity identity() const;
  // False while the BMC has "vanished" (e.g. during a firmware update with that fault set); the
  // engine then drops connections without answering.
  bool reachable() const;
  void setFaults(const BehaviourFaults& faults);
  // Called (from inside handle(), without the model's lock held) whenever the host boots.
  void setBootObserver(std::function<void(const BootEvent&)> observer);
  // With a fetcher, SimpleUpdate downloads an http(s) ImageURI before it answers (the answer
  // comes later, HttpResponse::later) and installs the version the package names; without one
  // (model tests), every image is treated as not served (docs/simulator.md).
  void setImageFetcher(ImageFetcher fetcher);
  // Every FirmwareInventory member with the version it reports now.
  std::vector<FirmwareVersion> firmwareVersions() const;
  // State for the control API: power, boot override, pending BIOS, firmware versions, tasks,
  // open sessions.
  nlohmann::json snapshot() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  ImageFetcher fetcher_;  // guarded by the state's mutex
};

// Profiles shipped in simulator/profiles/: "dell-r750", "hpe-dl385", "lenovo-sr670v2",
// "supermicro-hgx-h100", "dgx-h100".
std::vector<std::string> profileNames();
// Loads a shipped profile by name from `profilesDir` (default: the source tree's
// simulator/profiles).
common::Result<std::shared_ptr<const Profile>> loadProfile(const std::string& name,
                                                           const std::string& profilesDir = {});
// Loads a recorded dump directory (resource at /redfish/v1/X is <dir>/redfish/v1/X/index.json)
// with generic behaviour; the vendor is detected from the service root.
common::Result<std::shared_ptr<const Profile>> loadDumpProfile(const std::string& dumpDir);

}  // namespace sim
