// The pure decisions of an image rollout (node_image_update): which image a node boots next, what
// happens when it does not come up on it, and which channel a completed campaign promotes.
// No I/O; the steps (image_steps.cpp) and the controller (image_controller.cpp) act on them.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "workflows/campaign/spec.hpp"

namespace workflows::rollout {

struct ImageVersion {
  std::string name, version;
  bool operator==(const ImageVersion&) const = default;
};

// "ubuntu 24.04.2" (the campaign plan's `from`/`to` form) -> {name, version}; nullopt for ""
// or a text without both parts.
std::optional<ImageVersion> parseImageText(const std::string& text);
nlohmann::json toJson(const ImageVersion& image);
// data[key] as {"name", "version"}; nullopt when missing or malformed.
std::optional<ImageVersion> imageAt(const nlohmann::json& data, const char* key);

// What recover_image does after a failure of the node run.
enum class ImageRecovery {
  kResume,        // nothing was booted: the node goes back untouched, counted failed
  kBootPrevious,  // the new image was booted: boot the previous one and check the agent on it
  kQuarantine,    // no previous image to go back to, or it did not come up either
  kReportFailed,  // the node could not be given back to the scheduler (undrain failed)
};
struct ImageRecoveryDecision {
  ImageRecovery action = ImageRecovery::kResume;
  std::string campaign_state;  // the campaign node's state: failed | rolled_back | rollback_failed
};

// `failed_step`: the step that failed; `booted` is the phase recorded before the last boot
// ("" none yet, "new", "previous"); `has_previous`: the run knows the image the node ran before.
ImageRecoveryDecision decideImageRecovery(const std::string& failed_step, const std::string& booted,
                                          bool has_previous);

// The channel a campaign promotes when it completes: the spec's channel, for an image campaign
// that names one; nullopt otherwise (a firmware campaign, or an image campaign without channel).
std::optional<std::string> channelToPromote(const campaign::CampaignSpec& spec);

}  // namespace workflows::rollout
