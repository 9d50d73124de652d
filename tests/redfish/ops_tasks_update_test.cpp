// Task monitors (202 -> Running -> Completed / Exception, Retry-After), firmware update paths.
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "redfish/errors.hpp"
#include "redfish/support/mockup_client.hpp"
#include "redfish/tasks.hpp"
#include "redfish/update.hpp"

using nlohmann::json;
using redfish::Method;
using redfish::testing::FakeClient;
using redfish::testing::jsonResponse;
using redfish::testing::MockupClient;
using redfish::testing::mockupDir;

namespace {

json task(const std::string& state, int percent, json messages = json::array()) {
  return {{"@odata.id", "/redfish/v1/TaskService/Tasks/7"},
          {"TaskState", state},
          {"PercentComplete", percent},
          {"Messages", messages}};
}

// Answers the monitor with the scripted sequence, then repeats the last answer.
std::shared_ptr<FakeClient> monitorClient(std::vector<redfish::Response> answers) {
  auto index = std::make_shared<std::atomic<std::size_t>>(0);
  return std::make_shared<FakeClient>([answers, index](const redfish::Request&) {
    std::size_t at = std::min(index->fetch_add(1), answers.size() - 1);
    return common::Result<redfish::Response>(answers[at]);
  });
}

struct FakeTime {
  std::chrono::steady_clock::time_point now{};
  std::vector<std::chrono::milliseconds> waits;
  redfish::FollowOptions options(std::chrono::milliseconds interval,
                                 std::chrono::milliseconds timeout) {
    redfish::FollowOptions o;
    o.pollInterval = interval;
    o.timeout = timeout;
    o.now = [this] { return now; };
    o.sleep = [this](std::chrono::milliseconds d) {
      waits.push_back(d);
      now += d;
    };
    return o;
  }
};

const redfish::TaskRef kMonitor{"/redfish/v1/TaskService/TaskMonitors/7", ""};

}  // namespace

TEST_CASE("task monitor 202 Running then Completed", "[ops][tasks]") {
  auto client = monitorClient({jsonResponse(202, task("Running", 10), {{"retry-after", "3"}}),
                               jsonResponse(202, task("Running", 60)),
                               jsonResponse(200, task("Completed", 100))});
  FakeTime time;
  auto result = redfish::followTask(*client, kMonitor,
                                    time.options(std::chrono::seconds(1), std::chrono::minutes(5)));
  REQUIRE(result);
  CHECK(result->state == "Completed");
  CHECK(result->percent == 100);
  // Retry-After 3 s is longer than the 1 s interval: respected; then the interval.
  CHECK(time.waits ==
        std::vector<std::chrono::milliseconds>{std::chrono::seconds(3), std::chrono::seconds(1)});
}

TEST_CASE("task ending in Exception is bmc_task_failed with its messages", "[ops][tasks]") {
  json messages = {{{"MessageId", "Update.1.0.ApplyFailed"}, {"Message", "Image is corrupt."}}};
  auto client = monitorClient(
      {jsonResponse(202, task("Running", 5)), jsonResponse(200, task("Exception", 40, messages))});
  FakeTime time;
  auto result = redfish::followTask(*client, kMonitor,
                                    time.options(std::chrono::seconds(1), std::chrono::minutes(5)));
  REQUIRE_FALSE(result);
  CHECK(result.error().code == redfish::codes::kTaskFailed);
  CHECK(result.error().message.find("Image is corrupt.") != std::string::npos);
}

TEST_CASE("a task that never had its image is told from one that may have written it",
          "[ops][tasks]") {
  auto pollOf = [](const json& body) {
    auto client = monitorClient({jsonResponse(200, body)});
    auto poll = redfish::pollTaskOnce(*client, kMonitor);
    REQUIRE(poll);
    return poll->result;
  };
  json unreachable = {{{"MessageId", "TaskEvent.1.0.3.TaskAborted"}, {"Message", "Aborted."}},
                      {{"MessageId", "Base.1.15.0.ResourceAtUriUnreachable"},
                       {"Message", "The URI was not found or is unreachable."}}};
  auto fetch_failed = pollOf(task("Exception", 0, unreachable));
  CHECK(fetch_failed.message_ids.size() == 2);
  CHECK(redfish::imageNotTransferred(fetch_failed));
  CHECK(redfish::imageNotTransferred(
      pollOf(task("Exception", 10, {{{"MessageId", "Update.1.0.TransferFailed"}}}))));
  // Written in part, or no reason given: never "safe to start again".
  CHECK_FALSE(redfish::imageNotTransferred(
      pollOf(task("Exception", 40, {{{"MessageId", "Update.1.0.ApplyFailed"}}}))));
  CHECK_FALSE(redfish::imageNotTransferred(pollOf(task("Exception", 40))));
  CHECK_FALSE(redfish::imageNotTransferred(pollOf(
      task("Exception", 0, {{{"Message", "Base.1.15.0.ResourceAtUriUnreachable was not it"}}}))));
  CHECK_FALSE(redfish::imageNotTransferred(pollOf(task("Completed", 100, unreachable))));
}

TEST_CASE("task still running at the deadline times out", "[ops][tasks]") {
  auto client = monitorClient({jsonResponse(202, task("Running", 5))});
  FakeTime time;
  auto result = redfish::followTask(
      *client, kMonitor, time.options(std::chrono::seconds(10), std::chrono::seconds(35)));
  REQUIRE_FALSE(result);
  CHECK(result.error().code == redfish::codes::kTimeout);
  CHECK(time.waits.size() == 3);
}

TEST_CASE("pollTaskOnce reads a completed task of the DGX dump", "[ops][tasks]") {
  MockupClient dgx(mockupDir("nvidia_viking"));
  auto poll = redfish::pollTaskOnce(dgx, {"", "/redfish/v1/TaskService/Tasks/1"});
  REQUIRE(poll);
  CHECK(poll->terminal);
  CHECK(poll->result.state == "Completed");
}

TEST_CASE("SimpleUpdate on the DGX uses its non-standard target", "[ops][update][quirks]") {
  MockupClient dgx(mockupDir("nvidia_viking"));
  dgx.script(
      Method::kPost, "/redfish/v1/UpdateService/Actions/SimpleUpdate",
      jsonResponse(202, task("New", 0), {{"location", "/redfish/v1/TaskService/Tasks/9/Monitor"}}));
  auto ref = redfish::simpleUpdate(dgx, {"https://repo/fw.pldm", "HTTPS", {}});
  REQUIRE(ref);
  CHECK(ref->monitorUri == "/redfish/v1/TaskService/Tasks/9/Monitor");
  auto refused = redfish::simpleUpdate(dgx, {"tftp://repo/fw", "TFTP", {}});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == redfish::codes::kNotAllowed);
  CHECK(refused.error().message.find("HTTP, FTP, HTTPS") != std::string::npos);
}

TEST_CASE("SimpleUpdate targets checked against the Supermicro ActionInfo", "[ops][update]") {
  MockupClient smc(mockupDir("supermicro"));
  smc.script(Method::kPost, "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
             jsonResponse(202, nullptr, {{"location", "/redfish/v1/TaskService/Tasks/1"}}));
  auto ok = redfish::simpleUpdate(
      smc, {"https://repo/gpu.fwpkg",
            "HTTPS",
            {"/redfish/v1/UpdateService/FirmwareInventory/HGX_FW_GPU_SXM_1"}});
  REQUIRE(ok);
  auto bad = redfish::simpleUpdate(
      smc, {"https://repo/x", "HTTPS", {"/redfish/v1/UpdateService/FirmwareInventory/Nope"}});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == redfish::codes::kNotAllowed);
}

TEST_CASE("push update multipart on Dell and raw HttpPushUri on HPE", "[ops][update]") {
  auto image = std::filesystem::temp_directory_path() / "ops_update_test.bin";
  std::ofstream(image) << "firmware-bytes";
  MockupClient dell(mockupDir("dell"));
  dell.script(Method::kPost, "/redfish/v1/UpdateService/MultipartUpload",
              jsonResponse(202, nullptr, {{"location", "/redfish/v1/TaskService/Tasks/JID_5"}}));
  auto ref = redfish::pushUpdate(dell, {image.string(), {}, "Immediate"});
  REQUIRE(ref);
  CHECK(ref->monitorUri == "/redfish/v1/TaskService/Tasks/JID_5");
  for (const auto& s : dell.sent()) {
    if (s.method != Method::kPost) continue;
    REQUIRE(s.multipart.size() == 2);
    CHECK(s.multipart[0].name == "UpdateParameters");
    CHECK(json::parse(s.multipart[0].data)["@Redfish.OperationApplyTime"] == "Immediate");
    CHECK(s.multipart[1].name == "UpdateFile");
    CHECK(s.multipart[1].filePath == image.string());
  }
  MockupClient hpe(mockupDir("hpe"));
  hpe.script(Method::kPost, "/cgi-bin/uploadFile",
             jsonResponse(202, nullptr, {{"location", "/redfish/v1/TaskService/Tasks/3"}}));
  REQUIRE(redfish::pushUpdate(hpe, {image.string(), {}, "Immediate"}));
  for (const auto& s : hpe.sent()) {
    if (s.method == Method::kPost) CHECK(s.body == "firmware-bytes");
  }
  std::filesystem::remove(image);
}
