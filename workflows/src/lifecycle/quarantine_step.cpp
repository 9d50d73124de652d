// quarantine: where every failure ends. The node keeps the reason and the evidence a person needs
// (which part, what was measured), and the run ends failed with the same reason.
#include "inventory/nodes.hpp"
#include "lifecycle_internal.hpp"

namespace workflows::lifecycle {
namespace {

std::string text(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "component GPU123, pcie_link_width current 8 max 16" when the evidence names them.
std::string evidence(const nlohmann::json& detail) {
  std::string out;
  if (auto serial = text(detail, "component_serial"); !serial.empty()) {
    out = "component " + serial;
  }
  if (auto m = text(detail, "measurement"); !m.empty()) {
    out += (out.empty() ? "" : ", ") + m;
  }
  return out;
}

}  // namespace

StepOutcome quarantineStep(const Env& env, StepContext& ctx) {
  const nlohmann::json failure = ctx.data().value("failure", nlohmann::json::object());
  std::string reason = text(failure, "reason");
  if (reason.empty()) reason = "failed";
  const std::string message = text(failure, "message");
  const nlohmann::json detail =
      failure.is_object() && failure.contains("detail") && failure["detail"].is_object()
          ? failure["detail"]
          : nlohmann::json::object();

  // A scheduler that would not take the node says nothing about the hardware: the node stays
  // `ready` and the run ends failed, for `nodes retry ID --step handoff` once the scheduler is
  // back.
  if (text(failure, "step") == "handoff") {
    ctx.event("handoff_failed",
              "the scheduler was not told: " + reason + (message.empty() ? "" : ": " + message) +
                  "; the node stays ready",
              detail);
    return StepOutcome::fail(reason, message.empty() ? "hand-off failed" : message, detail);
  }
  if (auto node = runNode(ctx)) {
    // What people read in `nodes list`: the code, then the sentence naming part and measurement.
    const std::string shown = message.empty() ? reason : reason + ": " + message;
    auto set = inventory::setNodeState(*env.deps.db, *node, "quarantined", "workflow", shown,
                                       detail.dump());
    if (!set) return outcomeFor(set.error(), "quarantining the node");
    nlohmann::json event_detail = detail;
    event_detail["reason"] = reason;
    event_detail["step"] = text(failure, "step");
    const std::string named = evidence(detail);
    ctx.event("quarantined",
              "quarantined: " + reason + (named.empty() ? "" : " (" + named + ")") +
                  (message.empty() ? "" : ": " + message),
              std::move(event_detail));
  }
  return StepOutcome::fail(reason, message.empty() ? "node quarantined" : message, detail);
}

}  // namespace workflows::lifecycle
