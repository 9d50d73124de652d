// The certificate files as written, checked by the real `openssl pkeyutl` command line and by
// `provisioner cert verify`; the signing key file.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/secret_box.hpp"
#include "images/signing.hpp"
#include "service/cert_command.hpp"
#include "workflows/decommission/certificate.hpp"
#include "workflows/decommission/certificate_key.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace workflows::decommission;

namespace {

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("cert-test-" + common::sha256Hex(common::randomBytes(8)));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CertificateInput minimal(const std::string& key_id) {
  CertificateInput in;
  in.node = {"42", "CH-0001", "aa:bb:cc:dd:ee:01", "HGX-H200", "PO-7"};
  in.decommission_id = "7";
  SanitizedDevice d;
  d.serial = "SSD-1";
  d.media_type = "ssd";
  d.method = "purge";
  d.result = "passed";
  in.devices = {d};
  in.key_id = key_id;
  return in;
}

// Writes CERT.json, CERT.sig and KEY.pem exactly as the service would hand them out.
struct Files {
  TempDir dir;
  images::KeyPair key = images::generateKeyPair().value();
  std::string json = dir / "CERT.json";
  std::string sig = dir / "CERT.sig";
  std::string pub = dir / "KEY.pem";
  Files() {
    const std::string bytes = buildCertificate(minimal(key.key_id)).value();
    writeFile(json, bytes);
    writeFile(sig, signCertificate(bytes, key.private_pem).value());
    writeFile(pub, key.public_pem);
  }
  void flipByte() const {
    std::string bytes = readFile(json);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x01);
    writeFile(json, bytes);
  }
};

// The documented command, verbatim apart from the file names.
int opensslVerify(const Files& f) {
  const std::string command = "openssl pkeyutl -verify -pubin -inkey '" + f.pub + "' -rawin -in '" +
                              f.json + "' -sigfile '" + f.sig + "' >/dev/null 2>&1";
  return std::system(command.c_str());
}

struct Run {
  int code = 0;
  std::string out;
  std::string err;
};

Run certCommand(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  Run r;
  r.code = provisioner::service::runCertCommand(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("plain openssl pkeyutl verifies the certificate files as written") {
  Files f;
  CHECK(opensslVerify(f) == 0);
  f.flipByte();
  CHECK(opensslVerify(f) != 0);
}

TEST_CASE("provisioner cert verify: success, byte flip, wrong key, unreadable file, usage") {
  Files f;
  auto ok = certCommand({"verify", f.json, "--signature", f.sig, "--public-key", f.pub});
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Contains("verified") && Contains("node 42") && Contains(f.key.key_id));
  CHECK(std::count(ok.out.begin(), ok.out.end(), '\n') == 1);

  const std::string other = f.dir / "OTHER.pem";
  writeFile(other, images::generateKeyPair().value().public_pem);
  auto wrong = certCommand({"verify", f.json, "--signature", f.sig, "--public-key", other});
  CHECK(wrong.code == 1);
  CHECK_THAT(wrong.err, Contains("signature_invalid"));

  auto missing =
      certCommand({"verify", f.dir / "NOPE.json", "--signature", f.sig, "--public-key", f.pub});
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err, Contains("unreadable_file") && Contains("NOPE.json"));

  CHECK(certCommand({"verify", f.json}).code == 2);
  CHECK(certCommand({"sign"}).code == 2);

  f.flipByte();
  auto flipped = certCommand({"verify", f.json, "--signature", f.sig, "--public-key", f.pub});
  CHECK(flipped.code == 1);
  CHECK_THAT(flipped.err, Contains("signature_invalid"));
}

TEST_CASE("the certificate signing key is created once with mode 0600 and then reused") {
  TempDir dir;
  const fs::path state = dir.path / "state";
  auto first = loadOrCreateSigningKey(state);
  REQUIRE(first);
  struct stat st {};
  REQUIRE(::stat((state / kCertificateKeyFile).c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto again = loadOrCreateSigningKey(state);
  REQUIRE(again);
  CHECK(again->key_id == first->key_id);
  CHECK(again->public_pem == first->public_pem);
  CHECK(images::parsePublicKeyPem(again->public_pem).value().key_id == first->key_id);

  writeFile((state / kCertificateKeyFile).string(), "garbage");
  auto bad = loadOrCreateSigningKey(state);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == "invalid_private_key");
}
