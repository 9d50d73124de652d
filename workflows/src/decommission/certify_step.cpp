// certify: the signed sanitization certificate from what the inventory holds (the node, the
// decommission, every device record, the digest of every evidence document), built fail closed
// (any device not passed: no certificate), signed with the service's certificate key and stored
// with the node's end state in one transaction.
//
// End state: "retired"; for a redeploy "discovered", the state a node the lifecycle re-admits
// starts from (its next DHCP sighting runs the lifecycle from match, with factory credentials,
// since the managed secret is gone).
#include "../lifecycle/host_control.hpp"
#include "common/secret_box.hpp"
#include "decommission_env.hpp"
#include "inventory/nodes.hpp"
#include "inventory/workflow_runs.hpp"
#include "redfish/json.hpp"
#include "workflows/decommission/certificate.hpp"

namespace workflows::decommission {
namespace {

using nlohmann::json;

std::string disposition(const std::string& reason) {
  if (reason == "rma") return "returned to the vendor (RMA)";
  if (reason == "redeploy") return "redeployed: back to discovery";
  if (reason == "disposal") return "e-waste disposal";
  if (reason == "refresh") return "retired in a hardware refresh";
  return "retired after a tenant change";
}

std::string purchaseOrderOf(const Env& env, inventory::Id node_id) {
  auto run = inventory::latestRunForNode(env.db(), kNodeLifecycle, node_id);
  if (!run || !*run) return "";
  const json data = json::parse((*run)->context_json, nullptr, false);
  const json* po = redfish::at(data, {"expected", "po"});
  return po && po->is_string() ? po->get<std::string>() : "";
}

SanitizedDevice deviceOf(const inventory::DeviceSanitization& d) {
  SanitizedDevice out;
  out.manufacturer = d.manufacturer;
  out.model = d.model;
  out.serial = d.serial;
  out.media_type = d.media_type;
  out.method = d.sanitization;
  out.technique = d.technique;
  out.tool = d.tool;
  out.tool_version = d.tool_version;
  out.verification_method = d.verification_method;
  out.verification_coverage = d.verification_coverage;
  out.result = d.result;
  out.failure = d.failure;
  out.started_at = d.started_at.value_or("");
  out.finished_at = d.finished_at.value_or("");
  out.verified_by = d.verified_by;
  return out;
}

common::Result<CertificateInput> certificateInput(const Env& env, const StepContext& ctx,
                                                  const inventory::Decommission& d) {
  PROV_ASSIGN(auto node, inventory::getNode(env.db(), d.node_id));
  PROV_ASSIGN(auto devices, inventory::listDeviceSanitizations(env.db(), d.id));
  PROV_ASSIGN(auto evidence, inventory::listEvidence(env.db(), d.id));
  CertificateInput input;
  input.node = {std::to_string(node.id), node.chassis_serial, node.bmc_mac, node.hardware_model,
                purchaseOrderOf(env, node.id)};
  input.decommission_id = std::to_string(d.id);
  input.reason = d.reason;
  input.requested_by = d.requested_by;
  input.started_at = d.created_at;
  input.finished_at = lifecycle::isoTime(ctx.now());
  input.disposition = disposition(d.reason);
  for (const auto& device : devices) input.devices.push_back(deviceOf(device));
  for (const auto& e : evidence) input.evidence.push_back({e.name, e.sha256});
  input.key_id = env.settings.signing_key->key_id;
  input.issued_at = lifecycle::isoTime(ctx.now());
  return input;
}

}  // namespace

StepOutcome certifyStep(const Env& env, StepContext& ctx) {
  auto d = decommissionOf(env, ctx);
  if (!d) return StepOutcome::retry("inventory_error", d.error().message);
  // Finished before a crash lost this step's outcome: the certificate is stored.
  if (d->state == "succeeded") return StepOutcome::succeed("certificate already issued");
  auto input = certificateInput(env, ctx, *d);
  if (!input) return StepOutcome::retry("inventory_error", input.error().message);
  auto document = buildCertificate(*input);
  if (!document) {
    return StepOutcome::fail("certificate_refused", document.error().message,
                             {{"serial", document.error().field}});
  }
  auto signature = signCertificate(*document, env.settings.signing_key->private_pem);
  if (!signature) return StepOutcome::fail("signing_failed", signature.error().message);
  inventory::Certificate cert;
  cert.decommission_id = d->id;
  cert.node_id = d->node_id;
  cert.key_id = input->key_id;
  cert.document = *document;
  cert.document_sha256 = common::sha256Hex(*document);
  cert.signature = *signature;
  const std::string state = d->reason == "redeploy" ? "discovered" : "retired";
  auto stored = inventory::finishWithCertificate(env.db(), d->id, cert, state, ctx.now());
  if (!stored) return StepOutcome::retry("inventory_error", stored.error().message);
  ctx.event("certificate_issued",
            "sanitization certificate " + std::to_string(stored->id) + " for " +
                std::to_string(input->devices.size()) + " device(s); node " + state,
            {{"certificate_id", stored->id}, {"sha256", cert.document_sha256}});
  return StepOutcome::succeed("node " + state + " with a signed sanitization certificate");
}

}  // namespace workflows::decommission
