#include "cuda/gpu_identity.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "cuda/nvml_api.hpp"

namespace agent::cuda {
namespace {

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::vector<std::string> throttleReasonNames(std::uint64_t mask) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {nvml::kThrottleSwPowerCap, "sw_power_cap"},     {nvml::kThrottleHwSlowdown, "hw_slowdown"},
      {nvml::kThrottleSwThermal, "sw_thermal"},        {nvml::kThrottleHwThermal, "hw_thermal"},
      {nvml::kThrottleHwPowerBrake, "hw_power_brake"},
  };
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if ((mask & bit) != 0) names.emplace_back(name);
  }
  return names;
}

std::string formatGpuUuid(const std::array<unsigned char, 16>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "GPU-";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';  // 8-4-4-4-12 digits
    text += kHex[bytes[i] >> 4];
    text += kHex[bytes[i] & 0xf];
  }
  return text;
}

common::Result<std::vector<int>> matchByUuid(const std::vector<std::string>& cuda_uuids,
                                             const std::vector<std::string>& nvml_uuids) {
  std::vector<int> nvml_index_of;
  for (std::size_t cuda = 0; cuda < cuda_uuids.size(); ++cuda) {
    const std::string wanted = lowerCase(cuda_uuids[cuda]);
    auto found = std::find_if(nvml_uuids.begin(), nvml_uuids.end(),
                              [&](const std::string& uuid) { return lowerCase(uuid) == wanted; });
    if (found == nvml_uuids.end()) {
      return common::fail(common::unavailable(
          "gpu_map_failed", "CUDA device " + std::to_string(cuda) + " (" + cuda_uuids[cuda] +
                                ") has no NVML device with the same UUID"));
    }
    nvml_index_of.push_back(static_cast<int>(found - nvml_uuids.begin()));
  }
  return nvml_index_of;
}

}  // namespace agent::cuda
