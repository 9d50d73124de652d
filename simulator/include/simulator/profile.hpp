// A vendor profile: a recorded Redfish resource tree plus the vendor behaviour the BMC model
// reproduces (where actions live, what they accept, and each vendor's quirks).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace sim {

// Which vendor's quirks apply; detected from the service root.
enum class Vendor { kGeneric, kDell, kHpe, kLenovo, kSupermicro, kAmi };

// When a flashed firmware version shows in FirmwareInventory.
enum class FirmwareApply {
  kImmediate,   // when the update task completes
  kHostReset,   // after the next host boot (BIOS/UEFI)
  kPowerCycle,  // after Chassis.Reset ForceOff then On (HGX GPU/NVSwitch/baseboard firmware)
  kBmcRestart,  // the BMC's own firmware: it restarts (unreachable a while), then shows it
};

struct VendorBehaviour {
  Vendor vendor = Vendor::kGeneric;
  std::vector<std::string> hostSystems;        // ComputerSystem paths that are the host
  std::string mainChassis;                     // the chassis that carries the asset serial
  std::string resetTarget;                     // host ComputerSystem.Reset action target
  std::vector<std::string> resetTypes;         // allowed ResetType values
  std::vector<std::string> bootTargets;        // BootSourceOverrideTarget allowable values
  std::vector<std::string> bootEnabledValues;  // BootSourceOverrideEnabled allowable values
  std::vector<std::string> bootModes;          // BootSourceOverrideMode values
  std::string biosPath;                        // the Bios resource of the host
  std::string biosSettingsPath;                // its settings object (pending settings)
  std::string biosRegistryPath;                // the attribute registry file (may be empty)
  std::string resetBiosTarget;
  std::string simpleUpdateTarget;
  std::string multipartPushUri;
  std::string httpPushUri;
  std::string firmwareInventory;
  std::string sessionsPath;
  int sessionLimit = 8;
  int sessionLimitStatus = 503;  // what the vendor answers when all sessions are taken
  double sessionTimeoutSeconds = 1800;
  std::string tasksPath;
  std::string accountsPath;
  std::string subscriptionsPath;
  std::string managerPath;
  std::string managerResetToDefaultsTarget;
  std::string bmcEthernetInterface;                // manager NIC that carries the BMC MAC
  std::map<std::string, std::string> secureErase;  // action target -> drive path
  std::vector<std::string> gpus;                   // GPU Processors (or GPU PCIe devices), in order
  std::vector<std::string> gpuPcieDevices;  // PCIeDevices of GPUs (link width reported there)
  std::vector<std::string> powerSupplies;   // PowerSupply resources (PowerSubsystem), in order
  std::string legacyPowerPath;              // else: the Power resource whose array lists them
  std::vector<std::string> hostEthernetInterfaces;
  std::string dellJobsPath;                     // Dell: BIOS settings apply through a job
  std::string messagePrefix = "Base.1.12.";     // vendor's Base message registry version
  std::vector<std::string> hostDependentPaths;  // answer 503 while the host is off (HGX)
  bool caseInsensitivePaths = false;            // HPE: lower-case duplicates served
  double spurious401Rate = 0.0;                 // HPE: intermittent 401s
  bool requireIfMatch = false;                  // AMI: PATCH without If-Match -> 428
  bool redundantPowerConflict = false;          // Dell: On when on / ForceOff when off -> 409
  bool bootOverrideNeedsUefiMode = false;       // Supermicro: mode must come with the target
  bool expandSupported = false;                 // ProtocolFeaturesSupported.ExpandQuery
  double powerOnSeconds = 60;                   // PoweringOn -> On
  double powerOffSeconds = 10;                  // PoweringOff -> Off (graceful)
  double firmwareTaskSeconds = 180;             // a firmware update task from start to end
  double secureEraseSeconds = 120;
  // FirmwareInventory member path -> when its new version shows (absent: immediately).
  std::map<std::string, FirmwareApply> firmwareApply;
  std::map<std::string, std::string> chassisResets;  // Chassis.Reset target -> chassis path
  std::map<std::string, std::vector<std::string>> chassisResetTypes;  // chassis -> allowed
  // A chassis given the Chassis.Reset its recording lacks (Supermicro HGX: the AC cycle).
  std::string addedChassisReset;
};

class Profile {
 public:
  std::string name;
  std::string source;
  VendorBehaviour behaviour;
  // JSON object: path ("/redfish/v1/Systems/1") -> recorded resource body.
  std::shared_ptr<const nlohmann::json> resources;

  // The canonical path of the resource a request path names (trailing '/' ignored; HPE also
  // case-insensitive), or empty when there is none.
  std::string canonicalPath(std::string_view path) const;
  // The recorded body at a canonical path, or nullptr.
  const nlohmann::json* find(std::string_view canonical) const;

 private:
  friend class ProfileBuilder;
  std::map<std::string, std::string, std::less<>> lowerIndex_;  // lower-case path -> canonical
  bool foldCase_ = true;  // case-insensitive lookups (while deriving, and for HPE)
};

// Builds a profile from a resource tree (object path -> body): derives the behaviour from the
// tree and the per-profile table in vendor_behaviour.cpp.
class ProfileBuilder {
 public:
  static std::shared_ptr<const Profile> build(std::string name, std::string source,
                                              nlohmann::json resources);
};

}  // namespace sim
