#include "catalog_views.hpp"

#include "provisioner/http/pagination.hpp"

namespace provisioner::api {
namespace {

using nlohmann::json;

json imageRefJson(const inventory::ImageRef& ref) {
  return {{"name", ref.name}, {"version", ref.version}};
}

// Stored JSON documents are ours (written by the service), but a damaged row must not throw.
json storedJson(const std::string& text) {
  if (text.empty()) return nullptr;
  return json::parse(text, nullptr, false);
}

json optionalNumber(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json optionalText(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

}  // namespace

json toJson(const inventory::ImageRecord& image) {
  json artifacts = json::array();
  for (const auto& a : image.artifacts) {
    artifacts.push_back(
        {{"kind", a.kind}, {"sha256", a.sha256}, {"size", a.size}, {"file_name", a.file_name}});
  }
  return {{"id", image.id},
          {"name", image.name},
          {"version", image.version},
          {"description", image.description},
          {"kernel_args", image.kernel_args},
          {"artifacts", artifacts},
          {"key_id", image.key_id},
          {"registered_by", image.registered_by},
          {"registered_at", image.registered_at}};
}

json toJson(const inventory::Channel& channel) {
  return {{"name", channel.name},
          {"image", imageRefJson(channel.image)},
          {"updated_by", channel.updated_by},
          {"updated_at", channel.updated_at}};
}

json toJson(const inventory::ChannelEvent& event) {
  return {{"id", event.id},
          {"channel", event.channel},
          {"action", event.action},
          {"from", event.from ? imageRefJson(*event.from) : json(nullptr)},
          {"to", imageRefJson(event.to)},
          {"actor", event.actor},
          {"reason", event.reason},
          {"at", event.at}};
}

json toJson(const inventory::HardwareProfile& profile) {
  return {{"name", profile.name},
          {"model", profile.model},
          {"channel", profile.channel},
          {"burn_in_plan", storedJson(profile.burn_in_plan_json)},
          {"expected_gpus", profile.expected_gpus},
          {"bios_settings", storedJson(profile.bios_settings_json)},
          {"min_firmware", storedJson(profile.min_firmware_json)},
          {"gpu_model", profile.gpu_model},
          {"baseline", profile.baseline},
          {"updated_by", profile.updated_by},
          {"updated_at", profile.updated_at}};
}

json toJson(const inventory::AgentTask& task) {
  return {{"id", task.id},
          {"node_id", task.node_id},
          {"kind", task.kind},
          {"state", task.state},
          {"plan", storedJson(task.spec_json)},
          {"batch", task.batch},
          {"expected_gpus", task.expected_gpus},
          {"facts", storedJson(task.facts_json)},
          {"progress", storedJson(task.progress_json)},
          {"verdict", storedJson(task.verdict_json)},
          {"created_by", task.created_by},
          {"created_at", task.created_at},
          {"registered_at", optionalText(task.registered_at)},
          {"started_at", optionalText(task.started_at)},
          {"finished_at", optionalText(task.finished_at)}};
}

json toJson(const inventory::BurnInResultRecord& r) {
  return {{"task_id", r.task_id},
          {"node_id", r.node_id},
          {"batch", r.batch},
          {"gpu_serial", r.gpu_serial},
          {"gpu_uuid", r.gpu_uuid},
          {"gpu_model", r.gpu_model},
          {"test", r.test},
          {"value", r.value},
          {"unit", r.unit},
          {"nominal", optionalNumber(r.nominal)},
          {"threshold", r.threshold},
          {"batch_median", optionalNumber(r.batch_median)},
          {"robust_z", optionalNumber(r.robust_z)},
          {"passed", r.passed},
          {"reason", r.reason},
          {"measured_at", r.measured_at}};
}

json pageJson(const inventory::Page<inventory::ImageRecord>& page) {
  json items = json::array();
  for (const auto& image : page.items) items.push_back(toJson(image));
  return {{"items", items},
          {"next_cursor",
           page.next_after ? json(http::encodeCursor(*page.next_after)) : json(nullptr)}};
}

}  // namespace provisioner::api
