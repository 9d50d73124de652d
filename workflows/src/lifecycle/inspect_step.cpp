// inspect: the full Redfish crawl recorded in the inventory (parts with serials, host MACs for
// network boot), and the hardware checked against the order and the profile before anything is
// configured on it.
#include "firmware_record.hpp"
#include "host_control.hpp"
#include "inspect_components.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "lifecycle_internal.hpp"
#include "redfish/crawl.hpp"

namespace workflows::lifecycle {
namespace {

std::string chassisSerialOf(const redfish::Inventory& inv, const inventory::Node& node) {
  return node.chassis_serial.empty() && !inv.chassis.empty() ? inv.chassis.front().serialNumber
                                                             : node.chassis_serial;
}

// GPUs the order promised for this unit, else what the profile expects.
int expectedGpus(const StepContext& ctx, const inventory::HardwareProfile& profile) {
  const auto& expected = ctx.data()["expected"];
  if (expected.is_object()) {
    auto it = expected.find("gpu_count");
    if (it != expected.end() && it->is_number_integer()) return it->get<int>();
  }
  return profile.expected_gpus;
}

StepOutcome record(const Env& env, StepContext& ctx, const inventory::Node& node,
                   const redfish::Inventory& inv) {
  inventory::ComponentReport report;
  report.components = componentsOf(inv, chassisSerialOf(inv, node));
  report.actor = "redfish";
  auto reported = inventory::reportComponents(*env.deps.db, node.id, report);
  if (!reported) return outcomeFor(reported.error(), "recording the components");
  // The FirmwareInventory as crawled (compliance reads it); a crawl that got none keeps the last.
  auto firmware = observationsOf(inv);
  if (!firmware.empty()) {
    auto recorded =
        inventory::recordNodeFirmware(*env.deps.db, node.id, firmware, isoTime(ctx.current()));
    if (!recorded) return outcomeFor(recorded.error(), "recording the firmware inventory");
  }
  auto macs = hostMacs(inv);
  if (!macs.empty()) {
    auto added = inventory::addBootMacs(*env.deps.db, node.id, macs, "redfish");
    if (!added) {
      if (added.error().kind != common::ErrorKind::kConflict) {
        return outcomeFor(added.error(), "recording the boot MACs");
      }
      ctx.event("boot_mac_conflict", added.error().message, {{"field", added.error().field}});
    }
  }
  ctx.event("inventory_recorded",
            std::to_string(report.components.size()) + " components, " +
                std::to_string(macs.size()) + " host MACs",
            {{"installed", reported->installed},
             {"removed", reported->removed},
             {"firmware_changed", reported->firmware_changed},
             {"firmware_members", firmware.size()},
             {"gpus", inv.gpus.size()}});
  return StepOutcome::next("configure");
}

}  // namespace

StepOutcome inspectStep(const Env& env, StepContext& ctx) {
  auto node_id = runNode(ctx);
  if (!node_id)
    return StepOutcome::fail("no_node", "inspect needs the node the match step creates");
  auto node = inventory::getNode(*env.deps.db, *node_id);
  if (!node) return outcomeFor(node.error(), "reading the node");
  auto client = bmcClient(env, ctx);
  if (!client) return outcomeFor(client.error(), "opening the BMC");
  auto inv = redfish::crawlInventory(std::shared_ptr<redfish::Client>(*client));
  if (!inv) return outcomeFor(inv.error(), "crawling the BMC inventory");
  if (!inv->systems.empty()) ctx.data()["system_path"] = inv->systems.front().odataId;
  if (!inv->chassis.empty()) ctx.data()["chassis_path"] = inv->chassis.front().odataId;
  if (auto missed = unreadHostMacs(*inv); !missed.empty()) {
    // Found by the chaos harness: a node recorded with no boot MAC never got a boot script.
    return StepOutcome::retry("host_macs_unread",
                              "no host MAC read from the BMC: " + missed.front());
  }

  StepOutcome recorded = record(env, ctx, *node, *inv);
  if (recorded.kind != StepOutcome::Kind::kNext) return recorded;

  auto profile = inventory::profileForModel(*env.deps.db, node->hardware_model);
  if (!profile) return outcomeFor(profile.error(), "reading the hardware profile");
  if (!*profile) {
    return StepOutcome::fail("no_hardware_profile",
                             "no hardware profile names model " + node->hardware_model,
                             {{"model", node->hardware_model}});
  }
  ctx.data()["profile"] = (*profile)->name;
  auto findings = checkHardware(*inv, expectedGpus(ctx, **profile), (*profile)->gpu_model);
  if (!findings.empty()) {
    auto& first = findings.front();
    nlohmann::json all = nlohmann::json::array();
    for (const auto& f : findings) all.push_back({{"reason", f.reason}, {"message", f.message}});
    first.detail["findings"] = std::move(all);
    return StepOutcome::fail(first.reason, first.message, first.detail);
  }
  enterState(env, ctx, "inspected");
  return StepOutcome::next("configure", std::to_string(inv->gpus.size()) + " GPUs checked");
}

}  // namespace workflows::lifecycle
