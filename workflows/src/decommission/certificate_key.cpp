// The certificate signing key file: read it, or create it once with mode 0600.
#include "workflows/decommission/certificate_key.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace workflows::decommission {
namespace {

namespace fs = std::filesystem;

common::Result<images::KeyPair> readKey(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return common::internalError("cannot read " + file.string());
  auto pair = images::keyPairFromPrivatePem(text.str());
  if (!pair) {
    auto error = std::move(pair).error();
    error.message = file.string() + ": " + error.message;
    error.field = file.string();
    return common::fail(std::move(error));
  }
  return pair;
}

// O_EXCL: two replicas starting at once never overwrite each other's key; the loser reads it.
common::Result<bool> writeNewKey(const fs::path& file, const std::string& pem) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return false;
    return common::internalError("cannot create " + file.string() + ": " + std::strerror(errno));
  }
  std::size_t written = 0;
  while (written < pem.size()) {
    const ssize_t n = ::write(fd, pem.data() + written, pem.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(file.c_str());
      return common::internalError("cannot write " + file.string());
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    return common::internalError("cannot write " + file.string());
  }
  return true;
}

}  // namespace

common::Result<images::KeyPair> loadOrCreateSigningKey(const fs::path& state_dir) {
  const fs::path file = state_dir / kCertificateKeyFile;
  std::error_code ec;
  if (fs::exists(file, ec)) return readKey(file);
  fs::create_directories(state_dir, ec);
  if (ec) return common::internalError("cannot create " + state_dir.string() + ": " + ec.message());
  PROV_ASSIGN(auto pair, images::generateKeyPair());
  PROV_ASSIGN(const bool created, writeNewKey(file, pair.private_pem));
  if (!created) return readKey(file);
  return pair;
}

}  // namespace workflows::decommission
