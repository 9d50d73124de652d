// match: who the BMC says it is, against what the purchase orders say should arrive. The node is
// created in every case (an unexpected one quarantined) so people see it in the inventory.
#include "common/mac_address.hpp"
#include "inventory/discovery.hpp"
#include "inventory/nodes.hpp"
#include "inventory/purchase_orders.hpp"
#include "inventory/sites.hpp"
#include "lifecycle_internal.hpp"
#include "redfish/identity.hpp"

namespace workflows::lifecycle {
namespace {

std::string text(const nlohmann::json& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Where the unit should stand: the purchase order's rack and U, else the discovery's.
struct Placement {
  std::string rack_name;
  std::optional<int> u;
};

Placement placementFor(const Env& env, const StepContext& ctx,
                       const std::optional<inventory::ExpectedUnit>& unit) {
  Placement p;
  if (unit) {
    p.rack_name = unit->asset.rack;
    p.u = unit->asset.u_position;
  }
  auto id = ctx.data().find("discovery_id");
  if ((p.rack_name.empty() || !p.u) && id != ctx.data().end() && id->is_number_integer()) {
    if (auto d = inventory::getDiscovery(*env.deps.db, id->get<inventory::Id>())) {
      if (p.rack_name.empty()) p.rack_name = d->rack;
      if (!p.u) p.u = d->u_position;
    }
  }
  return p;
}

// The rack with this name, when exactly one site has one (racks are created by people, never by
// the workflow: a misspelt rack on a purchase order must not invent a rack).
std::optional<inventory::Rack> findRack(const Env& env, const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::optional<inventory::Rack> found;
  inventory::PageRequest page{0, 1000};
  for (;;) {
    auto racks = inventory::listRacks(*env.deps.db, "", page);
    if (!racks) return std::nullopt;
    for (auto& r : racks->items) {
      if (r.name != name) continue;
      if (found) return std::nullopt;  // ambiguous across sites
      found = r;
    }
    if (!racks->next_after) return found;
    page.after = *racks->next_after;
  }
}

// The node with the reported serial: found when a previous try created it, else created.
common::Result<inventory::Node> findOrCreateNode(const Env& env, const inventory::NodeSpec& spec) {
  PROV_ASSIGN(auto existing, inventory::findNodeBySerial(*env.deps.db, spec.chassis_serial));
  if (existing) return *existing;
  return inventory::createNode(*env.deps.db, spec, "workflow");
}

// Another node already has this BMC MAC (a moved BMC, a recycled board): people must decide.
StepOutcome nodeFailure(const common::Error& error) {
  if (error.kind == common::ErrorKind::kConflict) {
    return StepOutcome::fail(error.code, "creating the node: " + error.message,
                             {{"code", error.code}});
  }
  return outcomeFor(error, "creating the node");
}

struct Seen {
  redfish::Identity identity;
  std::string serial;  // chassis serial as reported (the system's when the chassis has none)
  std::string mac;     // normalised BMC MAC: the trigger's, else the identity's
};

StepOutcome attachAndFail(const Env& env, StepContext& ctx, const Seen& seen,
                          const inventory::NodeSpec& spec, const std::string& reason,
                          const std::string& message, nlohmann::json detail) {
  auto node = findOrCreateNode(env, spec);
  if (!node) return nodeFailure(node.error());
  ctx.data()["node_id"] = node->id;
  ctx.attachNode(node->id, node->site, node->rack);
  detail["reported_serial"] = seen.serial;
  detail["bmc_mac"] = seen.mac;
  return StepOutcome::fail(reason, message, std::move(detail));
}

void linkDiscovery(const Env& env, StepContext& ctx, inventory::Id node_id,
                   const std::string& mac) {
  auto id = ctx.data().find("discovery_id");
  if (id == ctx.data().end() || !id->is_number_integer()) return;
  auto linked =
      inventory::linkDiscoveryToNode(*env.deps.db, id->get<inventory::Id>(), node_id, mac);
  if (!linked) {
    ctx.event("discovery_not_linked", "could not link the discovery: " + linked.error().message);
  }
}

common::Result<Seen> readSeen(const Env& env, StepContext& ctx) {
  PROV_ASSIGN(auto client, bmcClient(env, ctx));
  PROV_ASSIGN(auto identity, redfish::readIdentity(*client));
  Seen seen;
  seen.serial = identity.chassisSerial.empty() ? identity.systemSerial : identity.chassisSerial;
  seen.mac = text(ctx.data(), "bmc_mac");
  if (seen.mac.empty()) seen.mac = identity.bmcMac;
  if (auto normal = common::normalizeMac(seen.mac)) seen.mac = *normal;
  seen.identity = std::move(identity);
  return seen;
}

}  // namespace

StepOutcome matchStep(const Env& env, StepContext& ctx) {
  auto seen = readSeen(env, ctx);
  if (!seen) return outcomeFor(seen.error(), "reading the BMC identity");
  if (seen->serial.empty()) {
    return StepOutcome::retry("no_serial", "the BMC reports no chassis or system serial yet");
  }
  auto& data = ctx.data();
  data["bmc_mac"] = seen->mac;
  data["vendor"] = seen->identity.vendor;
  data["bmc_firmware"] = seen->identity.bmcFirmware;

  std::optional<inventory::ExpectedUnit> unit;
  bool by_mac = false;
  if (!seen->mac.empty()) {
    auto found = inventory::expectedUnitByBmcMac(*env.deps.db, seen->mac);
    if (!found) return outcomeFor(found.error(), "looking up the purchase order by BMC MAC");
    unit = std::move(*found);
    by_mac = unit.has_value();
  }
  if (!unit) {
    auto found = inventory::expectedUnitBySerial(*env.deps.db, seen->serial);
    if (!found) return outcomeFor(found.error(), "looking up the purchase order by serial");
    unit = std::move(*found);
  }

  inventory::NodeSpec spec;
  spec.chassis_serial = seen->serial;
  spec.hardware_model = seen->identity.model;
  spec.bmc_address = text(data, "bmc_address");
  spec.bmc_mac = seen->mac;
  // Placed where it stands even when quarantined, so people find it in the rack.
  Placement place = placementFor(env, ctx, unit);
  auto rack = findRack(env, place.rack_name);
  if (rack) {
    spec.rack_id = rack->id;
    spec.u_position = place.u;
  }
  if (!unit) {
    spec.state = "quarantined";
    return attachAndFail(env, ctx, *seen, spec, "unexpected_hardware",
                         "no purchase order lists serial " + seen->serial + " or BMC MAC " +
                             (seen->mac.empty() ? "(unknown)" : seen->mac),
                         {});
  }
  if (by_mac && unit->asset.chassis_serial != seen->serial) {
    spec.state = "quarantined";
    return attachAndFail(
        env, ctx, *seen, spec, "serial_mismatch",
        "BMC MAC " + seen->mac + " is ordered as serial " + unit->asset.chassis_serial + " on " +
            unit->po_number + " but the chassis reports " + seen->serial,
        {{"expected_serial", unit->asset.chassis_serial}, {"po", unit->po_number}});
  }

  if (!place.rack_name.empty() && !rack) {
    ctx.event("rack_unknown", "rack " + place.rack_name + " is not in the inventory: node unracked",
              {{"rack", place.rack_name}});
  }
  auto node = findOrCreateNode(env, spec);
  if (!node) return nodeFailure(node.error());
  data["node_id"] = node->id;
  nlohmann::json expected = {{"po", unit->po_number},
                             {"serial", unit->asset.chassis_serial},
                             {"model", unit->asset.model}};
  if (unit->asset.gpu_count) expected["gpu_count"] = *unit->asset.gpu_count;
  data["expected"] = std::move(expected);
  ctx.attachNode(node->id, node->site, node->rack);
  linkDiscovery(env, ctx, node->id, seen->mac);
  enterState(env, ctx, "matched", "on " + unit->po_number);
  return StepOutcome::next("admit", "serial " + seen->serial + " matched " + unit->po_number);
}

}  // namespace workflows::lifecycle
