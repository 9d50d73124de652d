// Helpers for the engine tests: a handler that answers with its own identity, engine start-up on
// test addresses, and a raw TLS probe that reads the certificate a BMC presents.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <httplib.h>

#include "simulator/engine.hpp"

namespace sim::test {

// Answers every request with {"id", "method", "path", "query", "body_size"}.
class IdentityHandler : public BmcHandler {
 public:
  explicit IdentityHandler(std::string id) : id_(std::move(id)) {}
  HttpResponse handle(const HttpRequest& request) override;
  bool reachable() const override { return reachable_.load(); }
  void setReachable(bool value) { reachable_ = value; }
  int handled() const { return handled_.load(); }

 private:
  std::string id_;
  std::atomic<bool> reachable_{true};
  std::atomic<int> handled_{0};
};

struct TestEngine {
  std::unique_ptr<Engine> engine;
  std::vector<std::shared_ptr<IdentityHandler>> handlers;  // in BMC order
};

// `count` BMCs "bmc-000", "bmc-001", ... on addresses from `addressBase`, on one free port.
TestEngine startTestEngine(std::size_t count, const std::string& addressBase,
                           EngineOptions options = {}, Faults faults = {});

// An httplib client for a served BMC (TLS without verification: the certificates are
// self-signed), with a short timeout so that fault tests stay fast.
std::unique_ptr<httplib::Client> clientFor(
    const ServedBmc& bmc, std::chrono::milliseconds timeout = std::chrono::seconds(5));

// SHA-256 (lowercase hex) of the certificate presented at address:port, or "" on failure.
std::string presentedFingerprint(const std::string& address, std::uint16_t port);

// Polls `condition` until it holds or `deadline` passes; true when it held.
bool waitFor(const std::function<bool()>& condition,
             std::chrono::milliseconds deadline = std::chrono::seconds(10));

}  // namespace sim::test
