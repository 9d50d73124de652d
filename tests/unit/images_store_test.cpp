#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/secret_box.hpp"
#include "images/artifact_store.hpp"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("images-store-" + common::sha256Hex(common::randomBytes(8)));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

void writeFile(const fs::path& file, const std::string& content) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
}

std::size_t filesIn(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

std::shared_ptr<images::ArtifactStore> openStore(const TempDir& dir) {
  auto store = images::ArtifactStore::open(dir.path / "store");
  REQUIRE(store.ok());
  return *store;
}

images::Artifact kernelArtifact(const std::string& content) {
  return {images::ArtifactKind::kKernel, common::sha256Hex(content), content.size(), "vmlinuz"};
}

}  // namespace

TEST_CASE("sha256OfFile streams a file and names an unreadable one", "[unit][images]") {
  TempDir dir;
  const std::string big(3 * 1024 * 1024 + 17, 'x');  // several read chunks
  writeFile(dir.path / "big", big);
  auto digest = images::sha256OfFile(dir.path / "big");
  REQUIRE(digest.ok());
  CHECK(*digest == common::sha256Hex(big));
  auto missing = images::sha256OfFile(dir.path / "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == "artifact_unreadable");
  CHECK(images::isSha256Hex(*digest));
  CHECK_FALSE(images::isSha256Hex(std::string(64, 'A')));
}

TEST_CASE("An upload in chunks lands under its digest and verifies", "[unit][images]") {
  TempDir dir;
  auto store = openStore(dir);
  const std::string content = "kernel image bytes";
  auto upload = store->beginUpload(common::sha256Hex(content), content.size());
  REQUIRE(upload.ok());
  REQUIRE((*upload)->write("kernel ").ok());
  REQUIRE((*upload)->write("image bytes").ok());
  auto stored = (*upload)->commit();
  REQUIRE(stored.ok());
  CHECK(stored->path == store->pathFor(common::sha256Hex(content)));
  CHECK(stored->size == content.size());
  CHECK(filesIn(store->root() / "tmp") == 0);
  CHECK(store->verify(kernelArtifact(content)).ok());
  auto served = store->openVerified(common::sha256Hex(content));
  REQUIRE(served.ok());
  CHECK(served->path == stored->path);
}

TEST_CASE("A digest or size mismatch leaves nothing behind", "[unit][images]") {
  TempDir dir;
  auto store = openStore(dir);
  const std::string expected = common::sha256Hex("the real kernel");
  {
    auto upload = store->beginUpload(expected);
    REQUIRE(upload.ok());
    REQUIRE((*upload)->write("a forged kernel").ok());
    auto committed = (*upload)->commit();
    REQUIRE_FALSE(committed.ok());
    CHECK(committed.error().code == "artifact_digest_mismatch");
  }
  CHECK(filesIn(store->root() / "tmp") == 0);
  CHECK_FALSE(fs::exists(store->pathFor(expected)));

  auto short_upload = store->beginUpload(expected, 100);
  REQUIRE(short_upload.ok());
  REQUIRE((*short_upload)->write("the real kernel").ok());
  auto committed = (*short_upload)->commit();
  REQUIRE_FALSE(committed.ok());
  CHECK(committed.error().code == "artifact_size_mismatch");
  CHECK(filesIn(store->root() / "tmp") == 0);

  auto long_upload = store->beginUpload(expected, 4);
  REQUIRE(long_upload.ok());
  auto written = (*long_upload)->write("the real kernel");
  REQUIRE_FALSE(written.ok());
  CHECK(written.error().code == "artifact_size_mismatch");
  CHECK(filesIn(store->root() / "tmp") == 0);
  CHECK(store->beginUpload("not-a-digest").error().code == "invalid_sha256");
}

TEST_CASE("An abandoned upload removes its temporary file", "[unit][images]") {
  TempDir dir;
  auto store = openStore(dir);
  {
    auto upload = store->beginUpload(common::sha256Hex("x"));
    REQUIRE(upload.ok());
    REQUIRE((*upload)->write("partial").ok());
    CHECK(filesIn(store->root() / "tmp") == 1);
  }
  CHECK(filesIn(store->root() / "tmp") == 0);
  CHECK(filesIn(store->root() / "sha256") == 0);
}

TEST_CASE("importFile copies a local file in and checks its digest", "[unit][images]") {
  TempDir dir;
  auto store = openStore(dir);
  writeFile(dir.path / "initrd", "initrd content");
  auto imported = store->importFile(dir.path / "initrd", common::sha256Hex("initrd content"));
  REQUIRE(imported.ok());
  CHECK(fs::exists(imported->path));
  auto wrong = store->importFile(dir.path / "initrd", common::sha256Hex("other"));
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().code == "artifact_digest_mismatch");
}

TEST_CASE("verify catches a stored file tampered after an earlier verify", "[unit][images]") {
  TempDir dir;
  auto store = openStore(dir);
  const std::string content = "trusted kernel 01";
  writeFile(dir.path / "k", content);
  REQUIRE(store->importFile(dir.path / "k", common::sha256Hex(content)).ok());
  const auto artifact = kernelArtifact(content);
  REQUIRE(store->verify(artifact).ok());
  REQUIRE(store->verify(artifact).ok());  // cached

  // Same size, different bytes, later modification time.
  const fs::path stored = store->pathFor(artifact.sha256);
  const auto before = fs::last_write_time(stored);
  writeFile(stored, "evil!! kernel 01");
  writeFile(stored, "trusted kernel 02");
  fs::last_write_time(stored, before + std::chrono::seconds(1));
  auto tampered = store->verify(artifact);
  REQUIRE_FALSE(tampered.ok());
  CHECK(tampered.error().code == "artifact_digest_mismatch");
  CHECK(tampered.error().field == "artifacts[kernel]");
  CHECK(store->openVerified(artifact.sha256).error().code == "artifact_digest_mismatch");

  writeFile(stored, "trusted kernel 0123");
  auto resized = store->verify(artifact);
  REQUIRE_FALSE(resized.ok());
  CHECK(resized.error().code == "artifact_size_mismatch");

  fs::remove(stored);
  CHECK(store->verify(artifact).error().code == "artifact_missing");
  CHECK(store->openVerified(artifact.sha256).error().code == "artifact_not_found");
  CHECK(store->openVerified("../../etc/passwd").error().code == "artifact_not_found");
}
