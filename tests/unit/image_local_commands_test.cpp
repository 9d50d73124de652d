#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/secret_box.hpp"
#include "service/image_local_commands.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using provisioner::service::runImageLocalCommand;

namespace {

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("image-cli-" + common::sha256Hex(common::randomBytes(8)));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

struct Run {
  int code = 0;
  std::string out;
  std::string err;
};

Run run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  Run r;
  r.code = runImageLocalCommand(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

void writeFile(const std::string& file, const std::string& content) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
}

std::string readFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// keygen + manifest + sign in `dir`: key "release", artifacts vmlinuz and initrd.img,
// manifest.json and signed.json.
void buildSignedImage(const TempDir& dir) {
  REQUIRE(run({"keygen", "--out", dir / "release"}).code == 0);
  writeFile(dir / "vmlinuz", "kernel bytes");
  writeFile(dir / "initrd.img", "initrd bytes, a few more");
  auto made = run({"manifest", "--name", "ubuntu-burnin", "--version", "1.2.0", "--kernel",
                   dir / "vmlinuz", "--initrd", dir / "initrd.img", "--kernel-args",
                   "console=ttyS0 quiet", "--out", dir / "manifest.json"});
  REQUIRE(made.code == 0);
  auto signed_run = run({"sign", "--key", dir / "release.key", "--manifest", dir / "manifest.json",
                         "--out", dir / "signed.json"});
  REQUIRE(signed_run.code == 0);
}

}  // namespace

TEST_CASE("image keygen writes a private key 0600 and refuses to overwrite", "[unit][images]") {
  TempDir dir;
  auto first = run({"keygen", "--out", dir / "k"});
  REQUIRE(first.code == 0);
  CHECK_THAT(first.out, Contains("key id ed25519:"));
  CHECK_THAT(first.out + first.err, !Contains("PRIVATE KEY"));
  struct stat st {};
  REQUIRE(::stat((dir / "k.key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_THAT(readFile(dir / "k.key"), Contains("BEGIN PRIVATE KEY"));
  CHECK_THAT(readFile(dir / "k.pub"), Contains("BEGIN PUBLIC KEY"));

  const std::string key_before = readFile(dir / "k.key");
  auto again = run({"keygen", "--out", dir / "k"});
  CHECK(again.code == 1);
  CHECK_THAT(again.err, Contains("file_exists"));
  CHECK(readFile(dir / "k.key") == key_before);
}

TEST_CASE("image manifest computes digests and sizes from the files", "[unit][images]") {
  TempDir dir;
  writeFile(dir / "vmlinuz", "kernel bytes");
  writeFile(dir / "initrd.img", "initrd");
  writeFile(dir / "root.squashfs", "rootfs!");
  auto made = run({"manifest", "--name", "img", "--version", "1", "--kernel", dir / "vmlinuz",
                   "--initrd", dir / "initrd.img", "--rootfs", dir / "root.squashfs"});
  REQUIRE(made.code == 0);
  auto document = nlohmann::json::parse(made.out);
  REQUIRE(document["artifacts"].size() == 3);
  CHECK(document["artifacts"][0]["kind"] == "kernel");
  CHECK(document["artifacts"][0]["sha256"] == common::sha256Hex("kernel bytes"));
  CHECK(document["artifacts"][0]["size"] == 12);
  CHECK(document["artifacts"][0]["file_name"] == "vmlinuz");
  CHECK(document["artifacts"][2]["file_name"] == "root.squashfs");

  auto bad_name = run({"manifest", "--name", "Bad Name", "--version", "1", "--kernel",
                       dir / "vmlinuz", "--initrd", dir / "initrd.img"});
  CHECK(bad_name.code == 1);
  CHECK_THAT(bad_name.err, Contains("invalid_manifest"));
  auto missing = run({"manifest", "--name", "img", "--version", "1", "--kernel", dir / "none",
                      "--initrd", dir / "initrd.img"});
  CHECK(missing.code == 1);
  CHECK(run({"manifest", "--name", "img"}).code == 2);
}

TEST_CASE("image sign then verify accepts the image and its artifacts", "[unit][images]") {
  TempDir dir;
  buildSignedImage(dir);
  auto verified = run({"verify", "--signed", dir / "signed.json", "--trusted-key",
                       dir / "release.pub", "--artifacts-dir", dir.path.string()});
  CHECK(verified.code == 0);
  CHECK_THAT(verified.out, Contains("signature ok: ubuntu-burnin 1.2.0"));
  CHECK_THAT(verified.out, Contains("artifact ok: initrd initrd.img"));
  // Re-signing a signed document works (the manifest inside it is signed again).
  CHECK(run({"sign", "--key", dir / "release.key", "--manifest", dir / "signed.json"}).code == 0);
}

TEST_CASE("image verify names the failed check", "[unit][images]") {
  TempDir dir;
  buildSignedImage(dir);
  REQUIRE(run({"keygen", "--out", dir / "other"}).code == 0);

  auto untrusted =
      run({"verify", "--signed", dir / "signed.json", "--trusted-key", dir / "other.pub"});
  CHECK(untrusted.code == 1);
  CHECK_THAT(untrusted.err, Contains("image_key_untrusted: "));

  auto unsigned_run =
      run({"verify", "--signed", dir / "manifest.json", "--trusted-key", dir / "release.pub"});
  CHECK(unsigned_run.code == 1);  // a bare manifest is no signed document
  auto document = nlohmann::json::parse(readFile(dir / "signed.json"));
  document.erase("signature");
  writeFile(dir / "nosig.json", document.dump());
  auto no_signature =
      run({"verify", "--signed", dir / "nosig.json", "--trusted-key", dir / "release.pub"});
  CHECK_THAT(no_signature.err, Contains("image_unsigned: "));

  document = nlohmann::json::parse(readFile(dir / "signed.json"));
  document["manifest"]["kernel_args"] = "console=ttyS0 init=/bin/sh";
  writeFile(dir / "edited.json", document.dump());
  auto edited = run({"verify", "--signed", dir / "edited.json", "--trusted-key", dir / "other.pub",
                     "--trusted-key", dir / "release.pub"});
  CHECK(edited.code == 1);
  CHECK_THAT(edited.err, Contains("image_signature_invalid: "));

  writeFile(dir / "vmlinuz", "kernel bytez");  // same size, other bytes
  auto tampered = run({"verify", "--signed", dir / "signed.json", "--trusted-key",
                       dir / "release.pub", "--artifacts-dir", dir.path.string()});
  CHECK(tampered.code == 1);
  CHECK_THAT(tampered.err, Contains("artifact_digest_mismatch: "));
  writeFile(dir / "vmlinuz", "kernel");
  auto shorter = run({"verify", "--signed", dir / "signed.json", "--trusted-key",
                      dir / "release.pub", "--artifacts-dir", dir.path.string()});
  CHECK_THAT(shorter.err, Contains("artifact_size_mismatch: "));
}

TEST_CASE("image commands report usage and leave other commands to the caller", "[unit][images]") {
  CHECK(run({}).code == -1);
  CHECK(run({"list"}).code == -1);
  auto no_key = run({"verify", "--signed", "x.json"});
  CHECK(no_key.code == 2);
  CHECK_THAT(no_key.err, Contains("--trusted-key is required"));
  CHECK(run({"keygen", "--out"}).code == 2);
  CHECK(run({"sign", "--key", "a", "--key", "b", "--manifest", "m"}).code == 2);
  CHECK(run({"sign", "--bogus", "x"}).code == 2);
}

TEST_CASE("image sign refuses a key that is not an Ed25519 private key", "[unit][images]") {
  TempDir dir;
  buildSignedImage(dir);
  auto with_public =
      run({"sign", "--key", dir / "release.pub", "--manifest", dir / "manifest.json"});
  CHECK(with_public.code == 1);
  CHECK_THAT(with_public.err, Contains("invalid_private_key"));
  CHECK_THAT(with_public.err, !Contains("BEGIN"));
}
