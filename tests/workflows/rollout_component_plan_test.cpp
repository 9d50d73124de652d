// The node update's pure decisions: which members a component covers, what is still to flash,
// what a rollback takes back, and the scheduler payloads.
#include <catch2/catch.hpp>

#include "rollout/component_plan.hpp"
#include "rollout/drain_payload.hpp"

using nlohmann::json;
using workflows::lifecycle::FirmwareMember;
using namespace workflows::rollout;

namespace {

FirmwareMember member(std::string id, std::string version, std::string software_id = {}) {
  FirmwareMember m;
  m.path = "/redfish/v1/UpdateService/FirmwareInventory/" + id;
  m.id = id;
  m.name = id;
  m.version = std::move(version);
  m.software_id = std::move(software_id);
  return m;
}

json gpuComponent() {
  return {{"component", "gpu"},
          {"rule", {{"pattern", "hgx_fw_gpu_sxm"}}},
          {"from", "96.00.5E.00.01"},
          {"to", "96.00.89.00.01"},
          {"image_uri", "https://svc/boot/firmware/abc"},
          {"apply", "ac_power_cycle"},
          {"rollback", {{"version", "96.00.5E.00.01"}, {"image_uri", "https://svc/old"}}}};
}

}  // namespace

TEST_CASE("a component covers every member its rule matches and flashes the ones not there",
          "[rollout]") {
  auto parsed = parseComponents(json::array({gpuComponent()}));
  REQUIRE(parsed);
  std::vector<FirmwareMember> members = {member("HGX_FW_GPU_SXM_1", "96.00.89.00.01"),
                                         member("HGX_FW_GPU_SXM_2", "96.00.5E.00.01"),
                                         member("HGX_FW_BMC_0", "24.01")};
  const auto check = checkMembers(parsed->front(), members);
  CHECK(check.covered.size() == 2);
  REQUIRE(check.pending.size() == 1);
  CHECK(check.pending[0] == "/redfish/v1/UpdateService/FirmwareInventory/HGX_FW_GPU_SXM_2");
  CHECK(check.versions[0] == "HGX_FW_GPU_SXM_2=96.00.5E.00.01");
}

TEST_CASE("a package never goes over a version below the lowest it installs over", "[rollout]") {
  json entry = gpuComponent();
  entry["min_from"] = "96.00.60.00.01";
  auto parsed = parseComponents(json::array({entry}));
  REQUIRE(parsed);
  REQUIRE(parsed->front().min_from == "96.00.60.00.01");
  CHECK(toJson(parsed->front())["min_from"] == "96.00.60.00.01");
  std::vector<FirmwareMember> members = {member("HGX_FW_GPU_SXM_1", "96.00.61.00.01"),
                                         member("HGX_FW_GPU_SXM_2", "96.00.5E.00.01"),
                                         member("HGX_FW_GPU_SXM_3", "96.00.89.00.01")};
  auto check = checkMembers(parsed->front(), members);
  CHECK(check.pending.size() == 2);
  CHECK(check.below_min_from == std::vector<std::string>{"HGX_FW_GPU_SXM_2=96.00.5E.00.01"});
  parsed->front().min_from.clear();
  CHECK(checkMembers(parsed->front(), members).below_min_from.empty());
  auto back = rollbackOf(*parsed);
  REQUIRE(back);
  CHECK(back->front().min_from.empty());
}

TEST_CASE("a software_id rule matches exactly and ignores names", "[rollout]") {
  json rule = {{"software_id", "BMC-FW"}};
  CHECK(coversMember(rule, member("anything", "1", "BMC-FW")));
  CHECK_FALSE(coversMember(rule, member("BMC-FW", "1", "OTHER")));
  CHECK_FALSE(coversMember(json{{"pattern", ""}}, member("x", "1")));
}

TEST_CASE("bad components are refused naming the entry and field", "[rollout]") {
  json list = json::array({gpuComponent(), gpuComponent()});
  list[1]["apply"] = "sometimes";
  auto parsed = parseComponents(list);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().field == "components[1].apply");
  list[1] = gpuComponent();
  list[1]["rule"] = json::object();
  CHECK(parseComponents(list).error().field == "components[1].rule");
  CHECK(parseComponents(json::array()).error().field == "components");
}

TEST_CASE("a rollback reverses the touched components and needs every previous package",
          "[rollout]") {
  auto parsed = parseComponents(json::array({gpuComponent()}));
  REQUIRE(parsed);
  ComponentUpdate bmc = parsed->front();
  bmc.component = "bmc";
  bmc.from = "1.0";
  bmc.to = "2.0";
  bmc.rollback_image_uri = "https://svc/bmc-1.0";
  auto back = rollbackOf({bmc, parsed->front()});
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].component == "gpu");
  CHECK((*back)[0].to == "96.00.5E.00.01");
  CHECK((*back)[0].image_uri == "https://svc/old");
  CHECK((*back)[0].force);
  CHECK((*back)[1].to == "1.0");
  bmc.rollback_image_uri.reset();
  CHECK_FALSE(rollbackOf({bmc}));
}

TEST_CASE("drain payloads per scheduler and the idle answer", "[rollout]") {
  inventory::Node node;
  node.id = 7;
  node.chassis_serial = "SN 42";
  node.rack = "r01";
  auto generic = drainPayload("generic", DrainAction::kDrain, node, "campaign 3");
  REQUIRE(generic);
  CHECK((*generic)["action"] == "drain");
  CHECK((*generic)["node"]["hostname"] == "sn-42");
  auto slurm = drainPayload("slurm", DrainAction::kResume, node, "done");
  CHECK((*slurm)["state"] == "resume");
  auto k8s = drainPayload("kubernetes", DrainAction::kDrain, node, "");
  CHECK((*k8s)["spec"]["unschedulable"] == true);
  CHECK(drainPayload("pbs", DrainAction::kDrain, node, "").error().field == "drain_format");
  CHECK(schedulerSaysIdle(""));
  CHECK(schedulerSaysIdle(R"({"idle": true})"));
  CHECK_FALSE(schedulerSaysIdle(R"({"idle": false})"));
}

TEST_CASE("the install method: a push where advertised, SimpleUpdate only when allowed",
          "[rollout]") {
  InstallVia simple;
  CHECK(chooseInstallMethod(simple, false, true).method == "simple_update");
  CHECK(chooseInstallMethod(simple, true, true).method == "simple_update");

  InstallVia push;
  push.method = "multipart_push";
  push.sha256 = std::string(64, 'a');
  auto pushed = chooseInstallMethod(push, true, true);
  CHECK(pushed.method == "multipart_push");
  CHECK_FALSE(pushed.fallback);
  auto refused = chooseInstallMethod(push, false, true);
  CHECK(refused.method.empty());
  CHECK(refused.failure.find("MultipartHttpPushUri") != std::string::npos);

  push.simple_update_fallback = true;
  auto fallback = chooseInstallMethod(push, false, true);
  CHECK(fallback.method == "simple_update");
  CHECK(fallback.fallback);
  CHECK_FALSE(chooseInstallMethod(push, false, false).failure.empty());
}

TEST_CASE("the install method travels with the component and its rollback", "[rollout]") {
  json entry = gpuComponent();
  entry["install"] = {{"method", "multipart_push"},
                      {"sha256", std::string(64, 'b')},
                      {"size", 42},
                      {"simple_update_fallback", true}};
  entry["rollback"] = {{"version", "96.00.5E.00.01"},
                       {"image_uri", "https://svc/old"},
                       {"install", {{"method", "simple_update"}}}};
  auto parsed = parseComponents(json::array({entry}));
  REQUIRE(parsed);
  const auto& c = parsed->front();
  CHECK(c.install.method == "multipart_push");
  CHECK(c.install.size == 42);
  CHECK(c.install.simple_update_fallback);
  CHECK(c.rollback_install.method == "simple_update");
  auto again = parseComponents(json::array({toJson(c)}));
  REQUIRE(again);
  CHECK(again->front().install == c.install);
  auto back = rollbackOf(*parsed);
  REQUIRE(back);
  CHECK(back->front().install.method == "simple_update");

  entry["install"] = {{"method", "multipart_push"}};  // no file
  auto bad = parseComponents(json::array({entry}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "components[0].install.sha256");
  entry["install"] = {{"method", "scp"}};
  CHECK_FALSE(parseComponents(json::array({entry})));
}
