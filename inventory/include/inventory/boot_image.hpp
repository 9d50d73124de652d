// The image an agent task boots its node into, when the task names one: an image campaign
// boots a node into a version (or back into its previous one) that its channel does not serve
// (yet). The name rides in the task's frozen spec as "boot_image": {"name", "version"}; the
// agent ignores it, the boot route serves it. Pure: no database.
#pragma once

#include <optional>
#include <string>

#include "inventory/agent_tasks.hpp"
#include "inventory/images.hpp"

namespace inventory {

// The spec with "boot_image" set (a spec that is not a JSON object is replaced by one).
std::string withBootImage(const std::string& spec_json, const ImageRef& image);
// The image the task names; nullopt when it names none (the node boots its channel's image).
std::optional<ImageRef> bootImageOf(const AgentTask& task);

}  // namespace inventory
