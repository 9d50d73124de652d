// The image catalog over HTTP: artifact uploads, signed registration (each check named),
// immutability, artifact serving with Range, channels with promote/rollback history.
#include <fstream>

#include <catch2/catch.hpp>

#include "common/secret_box.hpp"
#include "image_test_support.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

std::string codeOf(const testing::HttpResult& r) {
  return r.json().value("code", "");
}

}  // namespace

TEST_CASE("A signed image with stored artifacts registers once and stays immutable",
          "[integration][images]") {
  ServiceFixture svc;
  auto image = testing::makeImage("burnin", "2026.12.1");
  CHECK(testing::registerImage(svc, image) == 201);

  auto listed = svc.get("/api/v1/images?name=burnin", "viewer");
  REQUIRE(listed.status == 200);
  REQUIRE(listed.json()["items"].size() == 1);
  auto shown = svc.get("/api/v1/images/burnin/2026.12.1", "viewer").json();
  CHECK(shown["key_id"] == image.key.key_id);
  CHECK(shown["artifacts"].size() == 3);
  CHECK(shown["manifest"]["signature"]["value"] == image.signed_manifest.signature->value);

  // The same document again is harmless; a different one under the same version is refused.
  CHECK(svc.send("POST", "/api/v1/images", image.document(), "operator").status == 200);
  auto other = testing::makeImage("burnin", "2026.12.1");
  testing::uploadArtifacts(svc, other);
  auto changed = svc.send("POST", "/api/v1/images", other.document(), "operator");
  CHECK(changed.status == 409);
  CHECK(codeOf(changed) == "image_version_exists");
}

TEST_CASE("Image registration names the check that failed", "[integration][images]") {
  ServiceFixture svc;
  auto image = testing::makeImage("burnin", "1.0.0");
  auto pub = images::parsePublicKeyPem(image.key.public_pem);
  REQUIRE(pub);
  svc.trustKey(*pub);
  testing::uploadArtifacts(svc, image);

  SECTION("unsigned") {
    images::SignedManifest bare{image.signed_manifest.manifest, std::nullopt};
    auto r = svc.send("POST", "/api/v1/images", images::toJson(bare).dump(), "operator");
    CHECK(r.status == 400);
    CHECK(codeOf(r) == "image_unsigned");
  }
  SECTION("signed with a key that is not trusted") {
    auto rogue = testing::makeImage("burnin", "1.0.0", testing::testKey("rogue"));
    testing::uploadArtifacts(svc, rogue);
    auto r = svc.send("POST", "/api/v1/images", rogue.document(), "operator");
    CHECK(r.status == 400);
    CHECK(codeOf(r) == "image_key_untrusted");
  }
  SECTION("manifest changed after signing") {
    auto doc = json::parse(image.document());
    doc["manifest"]["kernel_args"] = "console=ttyS0 init=/bin/sh";
    auto r = svc.send("POST", "/api/v1/images", doc.dump(), "operator");
    CHECK(r.status == 400);
    CHECK(codeOf(r) == "image_signature_invalid");
  }
  SECTION("artifact tampered in the store") {
    const std::string digest = common::sha256Hex(image.bytes.at("initrd"));
    std::ofstream(svc.storeDir() / "sha256" / digest, std::ios::binary | std::ios::app) << "x";
    auto r = svc.send("POST", "/api/v1/images", image.document(), "operator");
    CHECK(r.status == 400);
    CHECK(codeOf(r) == "artifact_size_mismatch");
  }
  SECTION("artifact never uploaded") {
    auto missing = testing::makeImage("burnin", "1.0.1");
    auto r = svc.send("POST", "/api/v1/images", missing.document(), "operator");
    CHECK(r.status == 400);
    CHECK(codeOf(r) == "artifact_missing");
  }
  // Nothing was registered by any refused attempt.
  CHECK(svc.get("/api/v1/images", "viewer").json()["items"].empty());
}

TEST_CASE("Artifact uploads keep only bytes that match their digest", "[integration][images]") {
  ServiceFixture svc;
  const std::string bytes = common::randomBytes(300000);
  const std::string digest = common::sha256Hex(bytes);

  auto wrong = svc.send("PUT", "/api/v1/artifacts/" + digest, bytes + "!", "operator",
                        "application/octet-stream");
  CHECK(wrong.status == 400);
  CHECK(codeOf(wrong) == "artifact_digest_mismatch");
  CHECK(svc.get("/api/v1/artifacts/" + digest, "viewer").status == 404);

  CHECK(svc.send("PUT", "/api/v1/artifacts/" + digest, bytes, "viewer", "application/octet-stream")
            .status == 403);
  auto stored =
      svc.send("PUT", "/api/v1/artifacts/" + digest, bytes, "operator", "application/octet-stream");
  REQUIRE(stored.status == 201);
  CHECK(stored.json()["size"] == bytes.size());

  httplib::Client client("127.0.0.1", svc.port());
  auto whole = client.Get(("/boot/artifacts/" + digest).c_str());
  REQUIRE(whole);
  CHECK(whole->status == 200);
  CHECK(whole->body == bytes);
  auto part = client.Get(("/boot/artifacts/" + digest).c_str(),
                         httplib::Headers{{"Range", "bytes=1000-1999"}});
  REQUIRE(part);
  CHECK(part->status == 206);
  CHECK(part->body == bytes.substr(1000, 1000));
  CHECK(part->get_header_value("Content-Range") ==
        "bytes 1000-1999/" + std::to_string(bytes.size()));
  // A Range past the end, or one that does not parse, is 416 on a download (only there).
  auto beyond = client.Get(("/boot/artifacts/" + digest).c_str(),
                           httplib::Headers{{"Range", "bytes=99999999-"}});
  REQUIRE(beyond);
  CHECK(beyond->status == 416);
  CHECK(beyond->get_header_value("Content-Range") == "bytes */" + std::to_string(bytes.size()));
  CHECK(beyond->get_header_value("Content-Type") == "application/problem+json");
  auto garbled =
      client.Get(("/boot/artifacts/" + digest).c_str(), httplib::Headers{{"Range", "bytes=abc"}});
  REQUIRE(garbled);
  CHECK(garbled->status == 416);
  CHECK(client.Get("/boot/artifacts/not-a-digest")->status == 404);
}

TEST_CASE("Channels promote and roll back with audited history", "[integration][images]") {
  ServiceFixture svc;
  for (const char* version : {"1.0", "2.0", "3.0"}) {
    REQUIRE(testing::registerImage(svc, testing::makeImage("burnin", version)) == 201);
    auto r = svc.sendJson("POST", "/api/v1/channels/stable/promote",
                          {{"image", "burnin"}, {"version", version}, {"reason", "qualified"}},
                          "operator");
    REQUIRE(r.status == 200);
    CHECK(r.json()["image"]["version"] == version);
  }
  auto again = svc.sendJson("POST", "/api/v1/channels/stable/promote",
                            {{"image", "burnin"}, {"version", "3.0"}}, "operator");
  CHECK(again.status == 409);
  CHECK(codeOf(again) == "channel_unchanged");
  CHECK(svc.sendJson("POST", "/api/v1/channels/stable/promote",
                     {{"image", "burnin"}, {"version", "2.0"}}, "asset")
            .status == 403);

  auto back = svc.sendJson("POST", "/api/v1/channels/stable/rollback",
                           {{"reason", "xid storms on 3.0"}}, "operator");
  REQUIRE(back.status == 200);
  CHECK(back.json()["image"]["version"] == "2.0");
  CHECK(svc.sendJson("POST", "/api/v1/channels/stable/rollback", json::object(), "operator")
            .json()["image"]["version"] == "1.0");
  auto none = svc.sendJson("POST", "/api/v1/channels/stable/rollback", json::object(), "operator");
  CHECK(none.status == 409);
  CHECK(codeOf(none) == "nothing_to_roll_back");

  auto channel = svc.get("/api/v1/channels/stable", "viewer").json();
  const auto& history = channel["history"];
  REQUIRE(history.size() == 5);
  CHECK(history[0]["action"] == "rollback");
  CHECK(history[0]["to"]["version"] == "1.0");
  CHECK(history[1]["reason"] == "xid storms on 3.0");
  CHECK(history[4]["action"] == "promote");
  CHECK(history[4]["from"].is_null());
  CHECK(history[2]["actor"] == "test-operator");

  auto audit = svc.get("/api/v1/audit?limit=100", "admin").json();
  int promotions = 0;
  for (const auto& entry : audit["items"]) {
    if (entry["action"] == "channels.promote" && entry["outcome"] == "success") ++promotions;
  }
  CHECK(promotions == 3);
}
