// Firmware versions as BMCs report them ("23.11.21", "01.01.03", "2.19.1-rc2", "P12"): compared
// part by part, so baselines, compliance and the firmware step agree on what is below what.
#pragma once

#include <string_view>

namespace workflows::firmware {

// -1, 0 or 1. Parts are split on '.', '-', '_' and spaces; within a part, runs of digits compare
// as numbers (leading zeros ignored, any length) and other runs as text. A missing part reads as
// empty, so "1.2" == "1.2.0" and "1.2" < "1.2.1".
int compareFirmwareVersions(std::string_view a, std::string_view b);

inline bool versionBelow(std::string_view version, std::string_view minimum) {
  return compareFirmwareVersions(version, minimum) < 0;
}

}  // namespace workflows::firmware
