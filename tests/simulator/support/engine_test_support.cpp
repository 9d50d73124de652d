#include "simulator/support/engine_test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <stdexcept>
#include <thread>

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <nlohmann/json.hpp>

namespace sim::test {

HttpResponse IdentityHandler::handle(const HttpRequest& request) {
  ++handled_;
  nlohmann::json body = {{"id", id_},
                         {"method", request.method},
                         {"path", request.path},
                         {"query", request.query},
                         {"body_size", request.body.size()}};
  return HttpResponse::json(200, body.dump());
}

TestEngine startTestEngine(std::size_t count, const std::string& addressBase, EngineOptions options,
                           Faults faults) {
  auto addresses = loopbackAddresses(addressBase, count);
  if (!addresses) throw std::runtime_error(addresses.error().message);
  TestEngine out;
  std::vector<BmcSlot> slots;
  for (std::size_t i = 0; i < count; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "bmc-%03zu", i);
    auto handler = std::make_shared<IdentityHandler>(id);
    out.handlers.push_back(handler);
    slots.push_back(BmcSlot{id, (*addresses)[i], handler, faults.latency, faults.transport});
  }
  auto engine = Engine::start(options, std::move(slots));
  if (!engine) throw std::runtime_error(engine.error().message);
  out.engine = std::move(engine).value();
  return out;
}

std::unique_ptr<httplib::Client> clientFor(const ServedBmc& bmc,
                                           std::chrono::milliseconds timeout) {
  auto client = std::make_unique<httplib::Client>(bmc.baseUrl);
  client->enable_server_certificate_verification(false);
  client->set_connection_timeout(timeout);
  client->set_read_timeout(timeout);
  client->set_write_timeout(timeout);
  client->set_keep_alive(true);
  return client;
}

namespace {

int connectTcp(const std::string& address, std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(port);
  inet_pton(AF_INET, address.c_str(), &target.sin_addr);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string hexDigest(X509* cert) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  X509_digest(cert, EVP_sha256(), digest.data(), &length);
  std::string hex;
  char pair[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(pair, sizeof pair, "%02x", digest[i]);
    hex += pair;
  }
  return hex;
}

}  // namespace

std::string presentedFingerprint(const std::string& address, std::uint16_t port) {
  int fd = connectTcp(address, port);
  if (fd < 0) return {};
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  std::string fingerprint;
  if (SSL_connect(ssl) == 1) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    if (cert != nullptr) fingerprint = hexDigest(cert);
    X509_free(cert);
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  close(fd);
  return fingerprint;
}

bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling interval, not a sync
  }
  return condition();
}

}  // namespace sim::test
