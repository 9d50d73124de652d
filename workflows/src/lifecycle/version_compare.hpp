// The lifecycle's names for the shared firmware version comparison
// (workflows/firmware/version_compare.hpp).
#pragma once

#include "workflows/firmware/version_compare.hpp"

namespace workflows::lifecycle {

using firmware::compareFirmwareVersions;
using firmware::versionBelow;

}  // namespace workflows::lifecycle
