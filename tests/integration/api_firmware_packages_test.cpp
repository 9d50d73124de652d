// Firmware packages: uploaded into the content-addressed store, registered naming the digest,
// immutable, served to BMCs only after the digest was checked again; bad input names its field.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "common/secret_box.hpp"
#include "integration/firmware_test_support.hpp"

using nlohmann::json;
using testing::ServiceFixture;

TEST_CASE("A firmware package is registered naming its uploaded artifact",
          "[integration][api][firmware]") {
  ServiceFixture svc;
  const std::string bytes(4096, 'b');
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", bytes) == 201);
  const std::string digest = common::sha256Hex(bytes);

  auto got = svc.get("/api/v1/firmware/packages/dgx-bmc/24.10.1", "viewer");
  REQUIRE(got.status == 200);
  const auto p = got.json();
  CHECK(p["sha256"] == digest);
  CHECK(p["size"] == 4096);
  CHECK(p["component"] == "bmc");
  CHECK(p["models"] == json::array({"DGX H100"}));
  CHECK(p["match"] == json{{"pattern", "BMC"}});
  CHECK(p["apply"] == "on_reset");
  CHECK(p["min_from_version"] == "24.01.1");
  CHECK(p["estimated_seconds"] == 900);
  CHECK(p["install_method"] == "simple_update");
  CHECK(p["simple_update_fallback"] == false);
  CHECK(p["artifact_verified"] == true);

  // A pushed package that may go by SimpleUpdate where the BMC has no multipart push.
  auto pushed = testing::packageBody("dgx-nvswitch", "1.0", "nvswitch", digest);
  pushed["install_method"] = "multipart_push";
  pushed["simple_update_fallback"] = true;
  REQUIRE(svc.sendJson("POST", "/api/v1/firmware/packages", pushed, "operator").status == 201);
  auto stored = svc.get("/api/v1/firmware/packages/dgx-nvswitch/1.0", "viewer").json();
  CHECK(stored["install_method"] == "multipart_push");
  CHECK(stored["simple_update_fallback"] == true);
  CHECK(p["image_uri"] == svc.publicUrl() + "/boot/artifacts/" + digest);

  auto listed = svc.get("/api/v1/firmware/packages?component=bmc", "viewer").json();
  REQUIRE(listed["items"].size() == 1);
  CHECK(svc.get("/api/v1/firmware/packages?component=gpu", "viewer").json()["items"].empty());
  CHECK(svc.get("/api/v1/firmware/packages?model=DGX%20A100", "viewer").json()["items"].empty());

  // The BMC fetches it from the boot route, which checks the digest before serving.
  httplib::Client client("127.0.0.1", svc.port());
  auto served = client.Get(("/boot/artifacts/" + digest).c_str());
  REQUIRE(served);
  CHECK(served->status == 200);
  CHECK(served->body == bytes);

  // A tampered file is never served and the package says why.
  std::ofstream(svc.storeDir() / "sha256" / digest, std::ios::binary | std::ios::trunc)
      << std::string(4096, 'x');
  auto tampered = client.Get(("/boot/artifacts/" + digest).c_str());
  REQUIRE(tampered);
  CHECK(tampered->status != 200);
  auto after = svc.get("/api/v1/firmware/packages/dgx-bmc/24.10.1", "viewer").json();
  CHECK(after["artifact_verified"] == false);
  CHECK(after["artifact_problem"]["code"] == "artifact_digest_mismatch");
  CHECK_FALSE(after.contains("image_uri"));
}

TEST_CASE("A digest mismatch stores nothing and a package needs its artifact",
          "[integration][api][firmware]") {
  ServiceFixture svc;
  const std::string bytes(1000, 'f');
  const std::string digest = common::sha256Hex(bytes);
  auto wrong = svc.send("PUT", "/api/v1/artifacts/" + digest, bytes + "!", "operator",
                        "application/octet-stream");
  CHECK(wrong.status == 400);
  CHECK(wrong.json()["code"] == "artifact_digest_mismatch");
  CHECK_FALSE(std::filesystem::exists(svc.storeDir() / "sha256" / digest));

  auto post = svc.sendJson("POST", "/api/v1/firmware/packages",
                           testing::packageBody("dgx-bmc", "24.10.1", "bmc", digest), "operator");
  CHECK(post.status == 404);
  CHECK(post.json()["code"] == "artifact_not_found");
  CHECK(post.json()["field"] == "sha256");
  CHECK(svc.get("/api/v1/firmware/packages", "viewer").json()["items"].empty());
}

TEST_CASE("Packages are immutable: same name and version with other content is refused",
          "[integration][api][firmware]") {
  ServiceFixture svc;
  REQUIRE(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "one") == 201);
  // The same registration again is idempotent.
  CHECK(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "one") == 200);
  // Other bytes under the same name and version: 409, the first one stays.
  CHECK(testing::registerPackage(svc, "dgx-bmc", "24.10.1", "bmc", "two") == 409);
  CHECK(svc.get("/api/v1/firmware/packages/dgx-bmc/24.10.1", "viewer").json()["sha256"] ==
        common::sha256Hex("one"));
  CHECK(testing::registerPackage(svc, "dgx-bmc", "24.11.0", "bmc", "two") == 201);
  CHECK(svc.get("/api/v1/firmware/packages", "viewer").json()["items"].size() == 2);
}

TEST_CASE("Bad package input is a 4xx naming the field and stores nothing",
          "[integration][api][firmware]") {
  ServiceFixture svc;
  const std::string digest = common::sha256Hex("blob");
  REQUIRE(svc.send("PUT", "/api/v1/artifacts/" + digest, "blob", "operator",
                   "application/octet-stream")
              .status == 201);
  auto refused = [&](json body) {
    auto r = svc.sendJson("POST", "/api/v1/firmware/packages", body, "operator");
    CHECK(r.status == 400);
    return r.json().value("field", "");
  };
  auto body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body["match"] = {{"regex", "B.C"}};
  CHECK(refused(body) == "match");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body.erase("match");
  CHECK(refused(body) == "match");
  body = testing::packageBody("dgx-bmc", "1.0", "BMC!", digest);
  CHECK(refused(body) == "component");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body["install_method"] = "scp";
  CHECK(refused(body) == "install_method");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body["simple_update_fallback"] = true;  // only for multipart_push
  CHECK(refused(body) == "simple_update_fallback");
  body["install_method"] = "multipart_push";
  body["simple_update_fallback"] = "yes";
  CHECK(refused(body) == "simple_update_fallback");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body["apply"] = "later";
  CHECK(refused(body) == "apply");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body["estimated_seconds"] = 0;
  CHECK(refused(body) == "estimated_seconds");
  body = testing::packageBody("Bad Name", "1.0", "bmc", digest);
  CHECK(refused(body) == "name");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", "abc");
  CHECK(refused(body) == "sha256");
  body = testing::packageBody("dgx-bmc", "1.0", "bmc", digest);
  body["models"] = {"DGX H100", ""};
  CHECK(refused(body) == "models[1]");
  CHECK(svc.get("/api/v1/firmware/packages", "viewer").json()["items"].empty());
  CHECK(svc.sendJson("POST", "/api/v1/firmware/packages",
                     testing::packageBody("dgx-bmc", "1.0", "bmc", digest), "viewer")
            .status == 403);
}
