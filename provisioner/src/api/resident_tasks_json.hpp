// What the health batch's answer carries of the node's resident tasks (resident_task_routes.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "inventory/node_credentials.hpp"
#include "provisioner/api/api.hpp"

namespace provisioner::api {

// The node's open tasks as [{"id", "kind", "gpu_serial"}], marked delivered; [] without a query
// when the credential check found none.
common::Result<nlohmann::json> residentTasksFor(const ApiContext& ctx,
                                                const inventory::NodeCredentialGrant& grant);

}  // namespace provisioner::api
