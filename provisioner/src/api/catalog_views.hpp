// How catalog and burn-in records look in API responses (docs/api.md): images, channels,
// hardware profiles, agent tasks and burn-in results.
#pragma once

#include <nlohmann/json.hpp>

#include "inventory/agent_tasks.hpp"
#include "inventory/images.hpp"

namespace provisioner::api {

nlohmann::json toJson(const inventory::ImageRecord& image);
nlohmann::json toJson(const inventory::Channel& channel);
nlohmann::json toJson(const inventory::ChannelEvent& event);
nlohmann::json toJson(const inventory::HardwareProfile& profile);
nlohmann::json toJson(const inventory::AgentTask& task);
nlohmann::json toJson(const inventory::BurnInResultRecord& result);
nlohmann::json pageJson(const inventory::Page<inventory::ImageRecord>& page);

}  // namespace provisioner::api
