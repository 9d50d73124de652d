// The multipart firmware push (UpdateService MultipartHttpPushUri) through the real transport to
// the simulator: an UpdateParameters JSON part and an UpdateFile part libcurl streams from disk,
// the Task followed as SimpleUpdate's is, the version the package file names installed, the
// push counted in the BMC's snapshot; ForceUpdate carried in UpdateParameters; a BMC without a
// MultipartHttpPushUri refused when the raw push is not wanted.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "redfish/errors.hpp"
#include "redfish/support/sim_fixture.hpp"
#include "redfish/tasks.hpp"
#include "redfish/update.hpp"

namespace {

constexpr double kFastTime = 200.0;
// A GPU: its task ends with the BMC answering (a BMC update restarts the BMC).
const char* kMember = "/redfish/v1/UpdateService/FirmwareInventory/HGX_FW_GPU_SXM_1";

redfish::FollowOptions quickFollow() {
  redfish::FollowOptions options;
  options.pollInterval = std::chrono::milliseconds(20);
  options.timeout = std::chrono::seconds(20);
  return options;
}

// A simulated firmware package file: the simulator installs the version it names.
struct PackageFile {
  explicit PackageFile(const std::string& version)
      : path(std::filesystem::temp_directory_path() /
             ("sim_multipart_push_" + version + "_" + std::to_string(::getpid()) + ".fwpkg")) {
    std::ofstream(path, std::ios::binary) << nlohmann::json{{"version", version}}.dump();
  }
  ~PackageFile() { std::filesystem::remove(path); }
  std::filesystem::path path;
};

redfish::PushUpdateRequest push(const PackageFile& file, bool force = false) {
  redfish::PushUpdateRequest request;
  request.filePath = file.path.string();
  request.targets = {kMember};
  request.forceUpdate = force;
  request.multipartOnly = true;
  return request;
}

}  // namespace

TEST_CASE("A multipart push installs the version its file names, followed as a task",
          "[redfish][sim][update]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 1, false, kFastTime));
  auto client = sim.client("r01-n01");
  auto caps = redfish::updateCapabilities(*client);
  REQUIRE(caps.ok());
  CHECK(caps->multipartHttpPushUri == "/redfish/v1/UpdateService/upload");
  CHECK(caps->simpleUpdate);

  PackageFile file("96.00.9A.00.01");
  auto task = redfish::pushUpdate(*client, push(file));
  REQUIRE(task.ok());
  auto result = redfish::followTask(*client, *task, quickFollow());
  INFO((result.ok() ? std::string() : result.error().message));
  REQUIRE(result.ok());
  CHECK(result->state == "Completed");

  auto snapshot = sim.snapshot("r01-n01");
  INFO(snapshot.dump());
  CHECK(snapshot["firmware"][kMember]["version"] == "96.00.9A.00.01");
  CHECK(snapshot["firmwareUpdates"]["MultipartHttpPushUri"] == 1);
  CHECK(snapshot["firmwareUpdates"]["SimpleUpdate"] == 0);
  REQUIRE(snapshot["tasks"].size() == 1);
  CHECK(snapshot["tasks"][0]["method"] == "MultipartHttpPushUri");
  CHECK(snapshot["tasks"][0]["targets"] == nlohmann::json::array({kMember}));
  CHECK(snapshot["tasks"][0]["version"] == "96.00.9A.00.01");
}

TEST_CASE("ForceUpdate in UpdateParameters lets a push downgrade where the BMC demands it",
          "[redfish][sim][update]") {
  auto sim = testing::SimFleet::start(testing::oneRack("dgx-h100", 1, false, kFastTime));
  sim.patchFaults("r01-n01", {{"downgrade_needs_force", true}});
  auto client = sim.client("r01-n01");
  PackageFile older("1.0.0");

  auto refused = redfish::pushUpdate(*client, push(older));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("ForceUpdate") != std::string::npos);
  CHECK(sim.snapshot("r01-n01")["firmwareUpdates"]["MultipartHttpPushUri"] == 0);

  auto forced = redfish::pushUpdate(*client, push(older, true));
  REQUIRE(forced.ok());
  REQUIRE(redfish::followTask(*client, *forced, quickFollow()).ok());
  auto snapshot = sim.snapshot("r01-n01");
  CHECK(snapshot["firmware"][kMember]["version"] == "1.0.0");
  CHECK(snapshot["firmwareUpdates"]["MultipartHttpPushUri"] == 1);
}

TEST_CASE("A BMC without MultipartHttpPushUri is not supported for a multipart-only push",
          "[redfish][sim][update]") {
  auto sim = testing::SimFleet::start(testing::oneRack("hpe-dl385", 1, false, kFastTime));
  auto client = sim.client("r01-n01");
  auto caps = redfish::updateCapabilities(*client);
  REQUIRE(caps.ok());
  CHECK(caps->multipartHttpPushUri.empty());
  CHECK_FALSE(caps->httpPushUri.empty());

  PackageFile file("2.0.0");
  auto pushed = redfish::pushUpdate(*client, push(file));
  REQUIRE_FALSE(pushed.ok());
  CHECK(pushed.error().code == redfish::codes::kNotSupported);
  CHECK(sim.snapshot("r01-n01")["tasks"].empty());
}
