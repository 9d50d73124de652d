// The pure decisions of an image rollout (see image_plan.hpp).
#include "image_plan.hpp"

namespace workflows::rollout {

std::optional<ImageVersion> parseImageText(const std::string& text) {
  const auto space = text.find(' ');
  if (space == std::string::npos || space == 0 || space + 1 >= text.size()) return std::nullopt;
  ImageVersion image{text.substr(0, space), text.substr(space + 1)};
  if (image.version.find(' ') != std::string::npos) return std::nullopt;
  return image;
}

nlohmann::json toJson(const ImageVersion& image) {
  return {{"name", image.name}, {"version", image.version}};
}

std::optional<ImageVersion> imageAt(const nlohmann::json& data, const char* key) {
  if (!data.is_object()) return std::nullopt;
  const auto it = data.find(key);
  if (it == data.end() || !it->is_object()) return std::nullopt;
  const auto name = it->find("name");
  const auto version = it->find("version");
  if (name == it->end() || version == it->end() || !name->is_string() || !version->is_string()) {
    return std::nullopt;
  }
  ImageVersion image{name->get<std::string>(), version->get<std::string>()};
  if (image.name.empty() || image.version.empty()) return std::nullopt;
  return image;
}

ImageRecoveryDecision decideImageRecovery(const std::string& failed_step, const std::string& booted,
                                          bool has_previous) {
  if (failed_step == "undrain") return {ImageRecovery::kReportFailed, "failed"};
  // The previous image did not come up either (or its check failed): nothing left to boot.
  if (booted == "previous") return {ImageRecovery::kQuarantine, "rollback_failed"};
  if (booted.empty()) return {ImageRecovery::kResume, "failed"};
  if (!has_previous) return {ImageRecovery::kQuarantine, "failed"};
  return {ImageRecovery::kBootPrevious, "rolled_back"};
}

std::optional<std::string> channelToPromote(const campaign::CampaignSpec& spec) {
  if (spec.kind != "image" || spec.image_channel.empty() || spec.image_version.empty()) {
    return std::nullopt;
  }
  return spec.image_channel;
}

}  // namespace workflows::rollout
