// The live state of one simulated BMC, shared by the model's handler files. Guarded by `mutex`;
// every handler runs with it held. BmcModel::State derives from it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/personalise.hpp"
#include "simulator/bmc_model.hpp"
#include "simulator/profile.hpp"

namespace sim::model {

struct Session {
  std::string id;
  std::string token;
  std::string user;
  double lastUsed = 0;
};

struct Power {
  bool on = true;
  double transitionEnd = 0;  // PoweringOn/PoweringOff until then
};

struct BootOverride {
  std::string target = "None";
  std::string enabled = "Disabled";
  std::string mode;
  std::string httpBootUri;
};

enum class TaskKind { kFirmware, kSecureErase };

struct Task {
  std::string id;
  TaskKind kind = TaskKind::kFirmware;
  double start = 0;
  double duration = 0;
  bool hung = false;
  bool finished = false;             // completion effects applied
  std::vector<std::string> targets;  // FirmwareInventory paths, or the drive
  std::string version;               // what it installs; empty: each target's version bumped
  std::string failure;               // not empty: the task ends in Exception with this message
  bool imageUnreachable = false;     // the failure: the ImageURI could not be fetched
  bool keepVersions = false;         // ends Completed/OK without changing a version (fault)
  std::string method;  // firmware: "SimpleUpdate", "MultipartHttpPushUri" or "HttpPushUri"
};

// A flashed version; `awaiting` says what must happen before the inventory shows it.
struct FirmwareChange {
  std::string version;
  std::optional<FirmwareApply> awaiting;
};

// A firmware update asked for, waiting on its image (SimpleUpdate with an http(s) ImageURI).
struct UpdateRequest {
  std::string image;                    // the ImageURI, or empty for a push
  std::vector<std::string> targets;     // canonical FirmwareInventory paths
  bool force = false;                   // ForceUpdate
  std::string oemVersion;               // Oem.Simulator.Version (tests of the model)
  std::string pushed;                   // a push's image bytes (UpdateFile part or raw body)
  std::string method = "SimpleUpdate";  // how it came: SimpleUpdate, MultipartHttpPushUri, ...
};

// A change the BMC accepted (recorded by side_effects.cpp): `kind` says what (bios_patch,
// boot_override, host_reset, account_patch, firmware_update, secure_erase, ...), `key` what for
// (the override target, a digest of the settings, the targets and version); `seq` counts from 1.
struct SideEffect {
  int seq = 0;
  double at = 0;  // simulated seconds
  std::string kind;
  std::string key;
};

struct ModelState {
  ModelState(std::shared_ptr<const Profile> p, std::string bmcId, std::uint64_t s,
             BmcCredentials creds, const SimClock& c, bool personalise)
      : profile(std::move(p)),
        id(std::move(bmcId)),
        seed(s),
        credentials(std::move(creds)),
        initialCredentials(credentials),
        clock(c),
        personaliser(s, id, personalise),
        rng(s ^ 0x5bd1e995ULL) {}

  const VendorBehaviour& behaviour() const { return profile->behaviour; }

  mutable std::mutex mutex;
  std::shared_ptr<const Profile> profile;
  std::string id;
  std::uint64_t seed;
  BmcCredentials credentials;
  BmcCredentials initialCredentials;
  const SimClock& clock;
  Personaliser personaliser;
  BehaviourFaults faults;
  std::function<void(const BootEvent&)> bootObserver;
  std::uint64_t rng;

  Power power;
  std::map<std::string, BootOverride> boot;               // per host system path
  nlohmann::json biosApplied = nlohmann::json::object();  // attributes changed from recorded
  nlohmann::json biosPending = nlohmann::json::object();
  bool biosResetPending = false;
  bool biosJobScheduled = false;  // Dell: a config job exists for the pending settings
  std::vector<std::string> jobs;  // Dell job ids created here
  std::map<std::string, FirmwareChange> firmware;  // inventory path -> new version
  std::vector<Task> tasks;
  std::map<std::string, Session> sessions;              // by id
  std::map<std::string, nlohmann::json> subscriptions;  // by path
  std::optional<double> vanishedUntil;
  std::string loginAccount;               // the Accounts member that holds `credentials`
  std::set<std::string> deletedAccounts;  // recorded Accounts members removed by DELETE
  int nextId = 1;
  std::vector<BootEvent> pendingBootEvents;      // delivered outside the lock
  bool downloadsImages = false;                  // an image fetcher is attached (BmcModel)
  std::optional<UpdateRequest> pendingDownload;  // fetched outside the lock, answered later
  bool chassisOff = false;  // Chassis.Reset ForceOff seen and not yet On: AC/aux power is off
  std::vector<SideEffect> sideEffects;  // every change accepted, in order (side_effects.cpp)

  double now() const { return clock.now(); }
  double uniform() {  // deterministic RNG in [0, 1)
    std::uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  }
};

}  // namespace sim::model
