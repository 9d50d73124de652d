// The image catalog (immutable versions), channels with their promote/rollback history, and
// hardware profiles (per server model: which channel, which burn-in plan).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct ImageArtifactRecord {
  std::string kind;  // "kernel", "initrd", "rootfs"
  std::string sha256;
  std::int64_t size = 0;
  std::string file_name;
};

struct ImageRecord {
  Id id = 0;
  std::string name;
  std::string version;
  std::string description;
  std::string kernel_args;
  std::vector<ImageArtifactRecord> artifacts;  // sorted by kind
  std::string manifest_json;  // the signed manifest document as registered (verifiable later)
  std::string key_id;         // the key that signed it
  std::string registered_by;
  Timestamp registered_at;
};

struct ImageRegistration {
  ImageRecord image;
  bool created = false;  // false: this exact manifest was registered before (idempotent)
};

// Registers a verified image (the caller checked signature and digests). Versions are immutable:
// the same name and version with a different manifest is Conflict "image_version_exists"; the
// same manifest again returns the existing record with created = false.
common::Result<ImageRegistration> registerImage(Database& db, const ImageRecord& image,
                                                const std::string& actor);
// NotFound "image_not_found".
common::Result<ImageRecord> getImage(Database& db, const std::string& name,
                                     const std::string& version);
// By name (empty: all), newest first within a name; keyset on id.
common::Result<Page<ImageRecord>> listImages(Database& db, const std::string& name,
                                             PageRequest page);

struct ImageRef {
  std::string name;
  std::string version;
};

struct Channel {
  std::string name;
  ImageRef image;
  std::string updated_by;
  Timestamp updated_at;
};

struct ChannelEvent {
  Id id = 0;
  std::string channel;
  std::string action;  // "promote" or "rollback"
  std::optional<ImageRef> from;
  ImageRef to;
  std::string actor;
  std::string reason;
  Timestamp at;
};

// Channel names: [a-z0-9][a-z0-9._-]{0,63} (InvalidArgument "invalid_channel_name").
// Points the channel at the image (creating the channel on first promote) and appends history.
// NotFound "image_not_found"; Conflict "channel_unchanged" when it already points there.
common::Result<Channel> promoteChannel(Database& db, const std::string& channel,
                                       const ImageRef& image, const std::string& actor,
                                       const std::string& reason);
// Without a target: back to the image the channel pointed at before its current image was
// promoted (repeated rollbacks walk further back). With a target: that version, which must be one
// the channel pointed at before (Conflict "not_in_channel_history"). NotFound "channel_not_found";
// Conflict "nothing_to_roll_back".
common::Result<Channel> rollbackChannel(Database& db, const std::string& channel,
                                        const std::optional<ImageRef>& target,
                                        const std::string& actor, const std::string& reason);
common::Result<Channel> getChannel(Database& db, const std::string& channel);
common::Result<std::vector<Channel>> listChannels(Database& db);
// Newest first. NotFound "channel_not_found".
common::Result<std::vector<ChannelEvent>> channelHistory(Database& db, const std::string& channel);

struct HardwareProfile {
  std::string name;     // [a-z0-9][a-z0-9._-]{0,63}
  std::string model;    // matches nodes.hardware_model exactly; unique across profiles
  std::string channel;  // need not exist yet (a node then gets a retry script)
  std::string burn_in_plan_json = "{}";  // agent::BurnInPlan as JSON; "{}": the default plan
  int expected_gpus = 0;
  std::string bios_settings_json = "{}";  // {"Attribute": value}: applied where different
  std::string min_firmware_json = "[]";   // [{"match", "version", "image_uri"}] (0004)
  std::string gpu_model;                  // every GPU must report it ("" accepts any)
  std::string baseline;  // the firmware baseline its nodes follow, by name ("" none) (0005)
  std::string updated_by;
  Timestamp updated_at;
};

// Creates or replaces by name. Conflict "duplicate_profile_model" when another profile has the
// model.
common::Result<HardwareProfile> upsertHardwareProfile(Database& db, const HardwareProfile& profile,
                                                      const std::string& actor);
common::Result<HardwareProfile> getHardwareProfile(Database& db, const std::string& name);
common::Result<std::vector<HardwareProfile>> listHardwareProfiles(Database& db);
// NotFound "profile_not_found". Nodes are matched to profiles by model, so deleting one only
// makes its nodes get the retry script until another profile names their model.
common::Result<void> deleteHardwareProfile(Database& db, const std::string& name,
                                           const std::string& actor);
// The profile whose model is `model`; nullopt when none.
common::Result<std::optional<HardwareProfile>> profileForModel(Database& db,
                                                               const std::string& model);

}  // namespace inventory
