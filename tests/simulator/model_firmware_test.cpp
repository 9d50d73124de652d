// Firmware update tasks, hung tasks, vanishing BMCs, secure erase, ResetToDefaults.
#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

namespace {

std::string firstInventoryWithout(Bmc& bmc, const std::string& word) {
  auto inventory = bmc.json(bmc.behaviour().firmwareInventory);
  for (const auto& m : inventory["Members"]) {
    auto path = m["@odata.id"].get<std::string>();
    if (path.find(word) == std::string::npos) return path;
  }
  return {};
}

}  // namespace

TEST_CASE("SimpleUpdate runs a task whose progress rises and then changes the version") {
  Bmc bmc("dgx-h100");
  auto target = firstInventoryWithout(bmc, "BIOS");
  auto before = bmc.json(target)["Version"].get<std::string>();
  auto r = bmc.send("POST", bmc.behaviour().simpleUpdateTarget,
                    {{"ImageURI", "http://10.0.0.1/fw.bin"},
                     {"Targets", nlohmann::json::array({target})},
                     {"Oem", {{"Simulator", {{"Version", "9.9.9"}}}}}});
  REQUIRE(r.status == 202);
  auto monitor = headerOf(r, "Location");
  auto task = bodyOf(r)["@odata.id"].get<std::string>();
  CHECK(bmc.get(monitor).status == 202);
  auto first = bmc.json(task)["PercentComplete"].get<int>();
  bmc.clock.advance(bmc.behaviour().firmwareTaskSeconds / 2);
  auto middle = bmc.json(task);
  CHECK(middle["TaskState"] == "Running");
  CHECK(middle["PercentComplete"].get<int>() > first);
  CHECK(bmc.json(target)["Version"] == before);
  bmc.clock.advance(bmc.behaviour().firmwareTaskSeconds);
  CHECK(bmc.json(task)["TaskState"] == "Completed");
  CHECK(bmc.json(task)["PercentComplete"] == 100);
  CHECK(bmc.get(monitor).status == 200);
  CHECK(bmc.json(target)["Version"] == "9.9.9");
  auto collection = bmc.json(bmc.behaviour().tasksPath);
  auto tasks = collection["Members"];
  REQUIRE_FALSE(tasks.empty());
  CHECK(tasks.back()["@odata.id"] == task);
}

TEST_CASE("A BIOS image changes the version only after the next reset") {
  Bmc bmc("supermicro-hgx-h100");
  const std::string bios = "/redfish/v1/UpdateService/FirmwareInventory/BIOS";
  auto before = bmc.json(bios)["Version"].get<std::string>();
  std::string boundary = "XyZ";
  sim::HttpRequest request;
  request.method = "POST";
  request.path = bmc.behaviour().multipartPushUri;
  request.headers = {{"authorization", basicAuth(kCredentials.username, kCredentials.password)},
                     {"content-type", "multipart/form-data; boundary=" + boundary}};
  request.body =
      "--XyZ\r\nContent-Disposition: form-data; name=\"UpdateParameters\"\r\n"
      "Content-Type: application/json\r\n\r\n{\"Targets\":[\"" +
      bios +
      "\"]}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"UpdateFile\"; "
      "filename=\"bios.bin\"\r\n\r\nBINARY\r\n--XyZ--\r\n";
  REQUIRE(bmc.model->handle(request).status == 202);
  bmc.clock.advance(bmc.behaviour().firmwareTaskSeconds + 1);
  CHECK(bmc.json(bios)["Version"] == before);
  REQUIRE(bmc.send("POST", bmc.behaviour().resetTarget, {{"ResetType", "ForceRestart"}}).status ==
          204);
  auto after = bmc.json(bios)["Version"].get<std::string>();
  CHECK(after != before);
  CHECK(after.size() >= before.size());
}

TEST_CASE("Hung tasks stay Running forever") {
  Bmc bmc("lenovo-sr670v2");
  sim::BehaviourFaults faults;
  faults.hungTasks = true;
  bmc.model->setFaults(faults);
  auto r = bmc.send("POST", bmc.behaviour().simpleUpdateTarget,
                    {{"ImageURI", "http://10.0.0.1/fw.bin"}});
  REQUIRE(r.status == 202);
  auto task = bodyOf(r)["@odata.id"].get<std::string>();
  auto first = bmc.json(task)["PercentComplete"];
  bmc.clock.advance(100000);
  CHECK(bmc.json(task)["TaskState"] == "Running");
  CHECK(bmc.json(task)["PercentComplete"] == first);
}

TEST_CASE("A vanishing BMC is unreachable once an update starts") {
  Bmc bmc("dell-r750");
  sim::BehaviourFaults faults;
  faults.vanishDuringFirmwareUpdate = true;
  bmc.model->setFaults(faults);
  CHECK(bmc.model->reachable());
  REQUIRE(bmc.send("POST", bmc.behaviour().simpleUpdateTarget,
                   {{"ImageURI", "http://10.0.0.1/idrac.exe"}})
              .status == 202);
  CHECK_FALSE(bmc.model->reachable());
  CHECK_FALSE(bmc.model->snapshot()["reachable"].get<bool>());
}

TEST_CASE("Drive SecureErase runs as a task to completion") {
  Bmc bmc("dell-r750");
  auto [target, drive] = *bmc.behaviour().secureErase.begin();
  auto r = bmc.send("POST", target, nlohmann::json::object());
  REQUIRE(r.status == 202);
  auto task = bodyOf(r)["@odata.id"].get<std::string>();
  CHECK(bmc.json(task)["TaskState"] == "Running");
  bmc.clock.advance(bmc.behaviour().secureEraseSeconds + 1);
  CHECK(bmc.json(task)["TaskState"] == "Completed");
  CHECK(bmc.model->snapshot()["tasks"][0]["targets"][0] == drive);
}

TEST_CASE("Manager ResetToDefaults restores the factory credentials and drops sessions") {
  Bmc bmc("lenovo-sr670v2");
  auto login = bmc.send("POST", bmc.behaviour().sessionsPath,
                        {{"UserName", kCredentials.username}, {"Password", kCredentials.password}},
                        {{"noauth", "1"}});
  auto token = headerOf(login, "X-Auth-Token");
  REQUIRE(
      bmc.send("POST", bmc.behaviour().managerResetToDefaultsTarget, {{"ResetType", "ResetAll"}})
          .status == 204);
  CHECK(bmc.send("GET", "/redfish/v1/Systems", nullptr, {{"x-auth-token", token}}).status == 401);
  CHECK(bmc.get("/redfish/v1/Systems").status == 200);
}

namespace {

// A multipart/form-data POST to the profile's MultipartHttpPushUri with these parts (name ->
// content; the file part gets a filename).
sim::HttpResponse multipartPush(Bmc& bmc,
                                const std::vector<std::pair<std::string, std::string>>& parts,
                                const std::string& type = "multipart/form-data; boundary=b0und") {
  sim::HttpRequest request;
  request.method = "POST";
  request.path = bmc.behaviour().multipartPushUri;
  request.headers = {{"authorization", basicAuth(kCredentials.username, kCredentials.password)},
                     {"content-type", type}};
  for (const auto& [name, content] : parts) {
    request.body += "--b0und\r\nContent-Disposition: form-data; name=\"" + name + "\"" +
                    (name == "UpdateFile" ? "; filename=\"pkg.fwpkg\"" : "") + "\r\n\r\n" +
                    content + "\r\n";
  }
  request.body += "--b0und--\r\n";
  return bmc.model->handle(request);
}

const char* kBmcMember = "/redfish/v1/UpdateService/FirmwareInventory/HostBMC_0";

}  // namespace

TEST_CASE("A multipart push installs the version the package file names and is counted") {
  Bmc bmc("dgx-h100");
  auto r = multipartPush(
      bmc, {{"UpdateParameters", "{\"Targets\":[\"" + std::string(kBmcMember) +
                                     "\"],\"@Redfish.OperationApplyTime\":\"Immediate\"}"},
            {"UpdateFile", "{\"version\": \"24.10.1\"}"}});
  REQUIRE(r.status == 202);
  bmc.clock.advance(bmc.behaviour().firmwareTaskSeconds + 1);
  CHECK(bmc.json(kBmcMember)["Version"] == "24.10.1");
  auto snapshot = bmc.model->snapshot();
  CHECK(snapshot["firmwareUpdates"]["MultipartHttpPushUri"] == 1);
  CHECK(snapshot["tasks"][0]["method"] == "MultipartHttpPushUri");
}

TEST_CASE("A malformed multipart push is refused with 400 naming the part, nothing started") {
  Bmc bmc("dgx-h100");
  const std::string file = "{\"version\": \"24.10.1\"}";
  const std::string targets = "{\"Targets\":[\"" + std::string(kBmcMember) + "\"]}";
  struct Case {
    const char* what;
    sim::HttpResponse response;
    const char* names;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"no UpdateFile", multipartPush(bmc, {{"UpdateParameters", targets}}), "UpdateFile"});
  cases.push_back(
      {"no UpdateParameters", multipartPush(bmc, {{"UpdateFile", file}}), "UpdateParameters"});
  cases.push_back({"UpdateParameters not JSON",
                   multipartPush(bmc, {{"UpdateParameters", "{not json"}, {"UpdateFile", file}}),
                   "UpdateParameters"});
  cases.push_back(
      {"Targets not a list",
       multipartPush(bmc, {{"UpdateParameters", "{\"Targets\": \"x\"}"}, {"UpdateFile", file}}),
       "Targets"});
  cases.push_back(
      {"unknown apply time",
       multipartPush(bmc, {{"UpdateParameters", "{\"@Redfish.OperationApplyTime\": \"Tomorrow\"}"},
                           {"UpdateFile", file}}),
       "OperationApplyTime"});
  cases.push_back({"not multipart",
                   multipartPush(bmc, {{"UpdateFile", file}}, "application/octet-stream"),
                   "multipart"});
  for (const auto& c : cases) {
    INFO(c.what << ": " << c.response.body);
    CHECK(c.response.status == 400);
    CHECK(c.response.body.find(c.names) != std::string::npos);
  }
  auto snapshot = bmc.model->snapshot();
  CHECK(snapshot["tasks"].empty());
  CHECK(snapshot["firmwareUpdates"]["MultipartHttpPushUri"] == 0);
}
