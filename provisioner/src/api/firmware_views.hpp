// How firmware records look in API responses (docs/api.md, docs/firmware.md): packages,
// baselines and their revisions, and a node's observed firmware.
#pragma once

#include <nlohmann/json.hpp>

#include "inventory/baselines.hpp"
#include "inventory/firmware_packages.hpp"
#include "inventory/node_firmware.hpp"

namespace provisioner::api {

// `image_uri`: where BMCs fetch it ("" leaves it out).
nlohmann::json toJson(const inventory::FirmwarePackage& package, const std::string& image_uri);
nlohmann::json toJson(const inventory::BaselineRevision& revision);
nlohmann::json toJson(const inventory::BaselineSummary& summary);
nlohmann::json toJson(const inventory::NodeFirmware& firmware);
nlohmann::json toJson(const inventory::FirmwareHistoryEntry& entry);

// {"items": [...], "next_cursor": ...}
nlohmann::json pageJson(const inventory::Page<inventory::FirmwarePackage>& page);
nlohmann::json pageJson(const inventory::Page<inventory::BaselineSummary>& page);

}  // namespace provisioner::api
