// A discovered BMC starts its node lifecycle run, once: repeated triggers find the open run, and
// a BMC whose lifecycle already ended (ready or quarantined) is left to the operators.
#include <nlohmann/json.hpp>

#include "inventory/workflow_runs.hpp"
#include "workflows/discovery.hpp"
#include "workflows/lifecycle.hpp"  // kNodeLifecycle

namespace workflows {
namespace {

// The rule of workflows::bmcSubject (lifecycle.hpp), kept here so that this library does not
// link the lifecycle's: "bmc:<mac>" when the MAC is known, else "bmc-at:<address>".
std::string subjectOf(const std::string& bmc_mac, const std::string& bmc_address) {
  return bmc_mac.empty() ? "bmc-at:" + bmc_address : "bmc:" + bmc_mac;
}

// The run of this discovery, if any: by node once it is known, else by subject. A row found by
// address that has since learnt its MAC keeps the run it started under its address.
common::Result<std::optional<inventory::WorkflowRun>> existingRun(
    inventory::Database& db, const inventory::Discovery& discovery) {
  if (discovery.node_id) {
    PROV_ASSIGN(auto run, inventory::latestRunForNode(db, kNodeLifecycle, *discovery.node_id));
    if (run) return run;
  }
  PROV_ASSIGN(auto run,
              inventory::latestRunForSubject(db, kNodeLifecycle,
                                             subjectOf(discovery.bmc_mac, discovery.bmc_address)));
  if (run || discovery.bmc_mac.empty()) return run;
  PROV_ASSIGN(auto by_address, inventory::latestRunForSubject(
                                   db, kNodeLifecycle, subjectOf("", discovery.bmc_address)));
  if (!by_address) return by_address;
  // The address may have been another BMC's before: only this discovery's own run counts.
  auto context = nlohmann::json::parse(by_address->context_json, nullptr, false);
  const auto* id =
      context.is_object() && context.contains("discovery_id") ? &context["discovery_id"] : nullptr;
  if (id != nullptr && id->is_number_integer() && id->get<inventory::Id>() == discovery.id) {
    return by_address;
  }
  return std::optional<inventory::WorkflowRun>();
}

}  // namespace

common::Result<StartResult> startLifecycleFor(Engine& engine, inventory::Database& db,
                                              const inventory::Discovery& discovery,
                                              const std::string& actor) {
  return startLifecycleFor(engine, db, discovery, actor, "");
}

common::Result<StartResult> startLifecycleFor(Engine& engine, inventory::Database& db,
                                              const inventory::Discovery& discovery,
                                              const std::string& actor,
                                              const std::string& base_url) {
  PROV_ASSIGN(auto existing, existingRun(db, discovery));
  if (existing) return StartResult{existing->id, false};
  StartRequest request;
  request.kind = kNodeLifecycle;
  request.subject = subjectOf(discovery.bmc_mac, discovery.bmc_address);
  request.context = {{"discovery_id", discovery.id},
                     {"bmc_address", discovery.bmc_address},
                     {"bmc_mac", discovery.bmc_mac}};
  if (!base_url.empty()) request.context["base_url"] = base_url;
  request.node_id = discovery.node_id;
  request.site = discovery.site;
  request.rack = discovery.rack;
  request.actor = actor;
  return engine.start(request);
}

}  // namespace workflows
