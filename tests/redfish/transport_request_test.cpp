// What goes on the wire: headers, JSON bodies, methods, targets, multipart uploads from disk.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "redfish/errors.hpp"
#include "redfish/support/fixture_server.hpp"
#include "redfish/support/transport_test_util.hpp"
#include "redfish/transport.hpp"

using namespace transport_test;
using fixture::FixtureServer;

TEST_CASE("transport sends Redfish headers and JSON bodies", "[transport][request]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  redfish::Request patch;
  patch.method = redfish::Method::kPatch;
  patch.target = bmc.baseUrl() + "/redfish/v1/Systems/1/Bios/Settings";  // absolute, same BMC
  patch.body = R"({"Attributes":{"BootMode":"Uefi"}})";
  patch.headers = {{"If-Match", "\"etag-7\""}};
  auto result = client->send(patch);
  REQUIRE(result.ok());
  CHECK(result->status == 200);
  CHECK(result->url == bmc.baseUrl() + "/redfish/v1/Systems/1/Bios/Settings");
  CHECK(result->header("content-type") == "application/json");
  auto echoed = nlohmann::json::parse(result->body);
  CHECK(echoed["Method"] == "PATCH");
  CHECK(echoed["Body"] == patch.body);
  CHECK(echoed["ContentType"] == "application/json");
  CHECK(echoed["Accept"] == "application/json");
  CHECK(echoed["ODataVersion"] == "4.0");
  CHECK(echoed["IfMatch"] == "\"etag-7\"");
}

TEST_CASE("transport refuses a target on another host", "[transport][request]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  auto result = client->send(get("http://192.0.2.1/redfish/v1/Systems"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(bmc.arrivals().empty());
}

TEST_CASE("transport streams a multipart upload from a file", "[transport][request]") {
  FixtureServer bmc;
  auto path = std::filesystem::temp_directory_path() /
              ("transport-upload-" + std::to_string(::getpid()) + ".bin");
  std::string image;
  for (int i = 0; i < 300000; ++i) image.push_back(static_cast<char>(i * 31 % 251));
  std::ofstream(path, std::ios::binary) << image;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  redfish::Request upload;
  upload.method = redfish::Method::kPost;
  upload.target = "/redfish/v1/Upload";
  upload.multipart = {{"UpdateParameters", "application/json", R"({"Targets":[]})", "", ""},
                      {"UpdateFile", "application/octet-stream", "", path.string(), "bmc-fw.bin"}};
  auto result = client->send(upload);
  std::filesystem::remove(path);
  REQUIRE(result.ok());
  CHECK(result->status == 202);
  CHECK(result->header("location") == "/redfish/v1/TaskService/Tasks/1");
  auto parts = bmc.parts();
  REQUIRE(parts.size() == 2);
  std::map<std::string, fixture::PartSeen> byName;
  for (auto& part : parts) byName[part.name] = part;
  CHECK(byName["UpdateParameters"].content == R"({"Targets":[]})");
  CHECK(byName["UpdateParameters"].contentType == "application/json");
  CHECK(byName["UpdateFile"].fileName == "bmc-fw.bin");
  CHECK(byName["UpdateFile"].contentType == "application/octet-stream");
  CHECK(byName["UpdateFile"].content == image);
}

TEST_CASE("transport reports a missing upload file without sending", "[transport][request]") {
  FixtureServer bmc;
  redfish::Transport transport(quickOptions());
  auto client = transport.client(endpointFor(bmc)).value();
  redfish::Request upload;
  upload.method = redfish::Method::kPost;
  upload.target = "/redfish/v1/Upload";
  upload.authenticated = false;
  upload.multipart = {{"UpdateFile", "application/octet-stream", "", "/nonexistent/fw.bin", ""}};
  auto result = client->send(upload);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(bmc.count("POST", "/redfish/v1/Upload") == 0);
}
