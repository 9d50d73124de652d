// How asset dispositions look in API responses, and the asset lookup with its end of life.
#pragma once

#include <nlohmann/json.hpp>

#include "inventory/dispositions.hpp"

namespace provisioner::api {

nlohmann::json toJson(const inventory::Disposition& d);

// Adds to an asset's JSON (json_views toJson(Asset)): "disposition" (the current one or null),
// "dispositions" (newest first), "replaces" (RMA records naming this serial as the replacement),
// and one "disposition" entry per record in "history", kept oldest first.
void addDispositions(nlohmann::json& asset, const inventory::DispositionHistory& history);

}  // namespace provisioner::api
