#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "images/manifest.hpp"

using nlohmann::json;

namespace {

const std::string kKernelSha(64, 'a');
const std::string kInitrdSha(64, 'b');
const std::string kRootfsSha(64, 'c');

json goodManifest() {
  return {
      {"name", "ubuntu-burnin"},
      {"version", "2026.11.1"},
      {"description", "burn-in image"},
      {"kernel_args", "console=ttyS0,115200 quiet"},
      {"artifacts",
       {{{"kind", "rootfs"}, {"sha256", kRootfsSha}, {"size", 3000}, {"file_name", "root.sq"}},
        {{"kind", "initrd"}, {"sha256", kInitrdSha}, {"size", 2000}, {"file_name", "initrd"}},
        {{"kind", "kernel"}, {"sha256", kKernelSha}, {"size", 1000}, {"file_name", "vmlinuz"}}}}};
}

// Parses `document` and returns the error field, requiring an invalid_manifest error.
std::string failingField(const json& document) {
  auto parsed = images::parseManifest(document);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error().code == "invalid_manifest");
  CHECK(parsed.error().message.find(parsed.error().field) != std::string::npos);
  return parsed.error().field;
}

}  // namespace

TEST_CASE("A good manifest parses with artifacts sorted by kind", "[unit][images]") {
  auto parsed = images::parseManifest(goodManifest());
  REQUIRE(parsed.ok());
  CHECK(parsed->name == "ubuntu-burnin");
  CHECK(parsed->version == "2026.11.1");
  CHECK(parsed->kernel_args == "console=ttyS0,115200 quiet");
  REQUIRE(parsed->artifacts.size() == 3);
  CHECK(parsed->artifacts[0].kind == images::ArtifactKind::kKernel);
  CHECK(parsed->artifacts[0].size == 1000);
  CHECK(parsed->artifacts[1].kind == images::ArtifactKind::kInitrd);
  CHECK(parsed->artifacts[2].kind == images::ArtifactKind::kRootfs);
  REQUIRE(images::findArtifact(*parsed, images::ArtifactKind::kRootfs) != nullptr);
  CHECK(images::findArtifact(*parsed, images::ArtifactKind::kRootfs)->file_name == "root.sq");
}

TEST_CASE("Manifest canonical bytes are sorted compact JSON independent of input order",
          "[unit][images]") {
  auto a = images::parseManifest(goodManifest());
  json reordered = goodManifest();
  std::swap(reordered["artifacts"][0], reordered["artifacts"][2]);
  reordered["unknown_key"] = "ignored";
  auto b = images::parseManifest(reordered);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const std::string bytes = images::canonicalBytes(*a);
  CHECK(bytes == images::canonicalBytes(*b));
  CHECK(bytes.rfind(R"({"artifacts":[{"file_name":"vmlinuz","kind":"kernel",)", 0) == 0);
  CHECK(bytes.find(' ', bytes.find("\"name\"")) == std::string::npos);
  CHECK(bytes.find("unknown_key") == std::string::npos);
  auto again = images::parseManifest(images::toJson(*a));
  REQUIRE(again.ok());
  CHECK(images::canonicalBytes(*again) == bytes);
}

TEST_CASE("Manifest errors name the offending field", "[unit][images]") {
  json m = goodManifest();
  m["name"] = "Ubuntu";
  CHECK(failingField(m) == "name");
  m = goodManifest();
  m.erase("version");
  CHECK(failingField(m) == "version");
  m = goodManifest();
  m["version"] = "-1";
  CHECK(failingField(m) == "version");
  m = goodManifest();
  m["kernel_args"] = "init=$(evil)";
  CHECK(failingField(m) == "kernel_args");
  m = goodManifest();
  m["kernel_args"] = "quiet \"x\"";
  CHECK(failingField(m) == "kernel_args");
  m = goodManifest();
  m["artifacts"][1]["sha256"] = std::string(64, 'B');
  CHECK(failingField(m) == "artifacts[1].sha256");
  m = goodManifest();
  m["artifacts"][2]["sha256"] = std::string(63, 'a');
  CHECK(failingField(m) == "artifacts[2].sha256");
  m = goodManifest();
  m["artifacts"][0]["size"] = 0;
  CHECK(failingField(m) == "artifacts[0].size");
  m = goodManifest();
  m["artifacts"][0]["size"] = 12.5;
  CHECK(failingField(m) == "artifacts[0].size");
  m = goodManifest();
  m["artifacts"][0]["size"] = "100";
  CHECK(failingField(m) == "artifacts[0].size");
  m = goodManifest();
  m["artifacts"][1]["kind"] = "bootloader";
  CHECK(failingField(m) == "artifacts[1].kind");
  m = goodManifest();
  m["artifacts"][1]["file_name"] = "../../etc/passwd";
  CHECK(failingField(m) == "artifacts[1].file_name");
  m = goodManifest();
  m["artifacts"] = "none";
  CHECK(failingField(m) == "artifacts");
  CHECK(failingField(json::array()) == "manifest");
}

TEST_CASE("Manifest artifact kinds need one kernel one initrd and at most one rootfs",
          "[unit][images]") {
  json m = goodManifest();
  m["artifacts"].erase(2);  // the kernel
  CHECK(failingField(m) == "artifacts");
  m = goodManifest();
  m["artifacts"].erase(1);  // the initrd
  CHECK(failingField(m) == "artifacts");
  m = goodManifest();
  m["artifacts"][1]["kind"] = "kernel";
  CHECK(failingField(m) == "artifacts");
  m = goodManifest();
  m["artifacts"].erase(0);  // no rootfs is fine
  CHECK(images::parseManifest(m).ok());
  m = goodManifest();
  m["artifacts"][2]["kind"] = "rootfs";
  CHECK(failingField(m) == "artifacts");
}
