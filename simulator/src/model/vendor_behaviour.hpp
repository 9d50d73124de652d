// Derives a profile's vendor behaviour from its resource tree plus the per-vendor table.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "simulator/profile.hpp"

namespace sim::model {

// `resolve` maps a link as written in the tree to the canonical path of the resource.
VendorBehaviour deriveBehaviour(const Profile& profile);

}  // namespace sim::model
