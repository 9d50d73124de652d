// The simulator's network engine: serves many simulated BMCs from one process on ONE libevent
// loop thread. Each BMC listens on its own loopback address (127.x.y.z) on a shared port, over
// HTTPS with its own self-signed certificate (or plain HTTP), and gets the latency and transport
// faults (5xx, timeouts, resets, malformed bodies) it is configured with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "simulator/faults.hpp"
#include "simulator/http_types.hpp"

namespace sim {

// What the engine serves at one address.
class BmcHandler {
 public:
  virtual ~BmcHandler() = default;
  virtual HttpResponse handle(const HttpRequest&) = 0;  // called on the engine's loop thread
  virtual bool reachable() const = 0;  // false: connections are dropped without an answer
};

struct EngineOptions {
  bool tls = true;
  std::uint16_t port = 0;  // shared by every BMC address; 0 picks a free one
  std::uint64_t seed = 1;  // seeds each BMC's fault and latency draws (reproducible runs)
  std::size_t maxBodyBytes = 64u * 1024 * 1024;  // firmware pushes are large
  int idleTimeoutSeconds = 120;                  // an idle keep-alive connection is closed after
};

// One BMC to serve.
struct BmcSlot {
  std::string id;
  std::string address;  // an IPv4 loopback literal, e.g. "127.20.0.7"
  std::shared_ptr<BmcHandler> handler;
  LatencyModel latency;
  TransportFaults transport;
};

// A plain-HTTP service on the same loop, without faults, latency or statistics (the control API).
struct ServiceSlot {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0 picks a free one
  std::shared_ptr<BmcHandler> handler;
};

struct ServedBmc {
  std::string id;
  std::string address;
  std::uint16_t port = 0;
  std::string baseUrl;      // "https://127.20.0.7:8443"
  std::string fingerprint;  // SHA-256 of the certificate's DER, lowercase hex; empty over HTTP
};

struct FaultCounters {
  std::uint64_t http5xx = 0;      // answered 503 by fault
  std::uint64_t timeouts = 0;     // held without an answer
  std::uint64_t resets = 0;       // connection closed without an answer
  std::uint64_t malformed = 0;    // body cut in half
  std::uint64_t unreachable = 0;  // dropped because the BMC was not reachable
};

struct BmcStats {
  std::string id;
  std::uint64_t requests = 0;             // requests received
  std::uint64_t answered = 0;             // responses sent (faulty ones included)
  std::uint64_t connectionsAccepted = 0;  // TCP connections accepted
  std::uint32_t openConnections = 0;      // connections open now (that carried a request)
  std::uint32_t peakConnections = 0;      // most open at once
  FaultCounters faults;
};

struct EngineStats {
  std::uint64_t requests = 0;
  std::uint64_t answered = 0;
  std::uint64_t connectionsAccepted = 0;
  std::uint32_t openConnections = 0;
  std::uint32_t peakConnections = 0;  // most open at once across all BMCs
  FaultCounters faults;
  std::vector<BmcStats> bmcs;  // in the order the BMCs were given
};

// `count` IPv4 loopback addresses from `base` upwards (127.20.0.1, 127.20.0.2, ...), skipping
// host parts .0 and .255; an error when `base` is not in 127.0.0.0/8 or the range runs out.
common::Result<std::vector<std::string>> loopbackAddresses(const std::string& base,
                                                           std::size_t count);

class Engine {
 public:
  // Binds every address (all or nothing), then starts the loop thread. Raises RLIMIT_NOFILE to
  // its hard limit first and ignores SIGPIPE (process-wide: peers vanish mid-write).
  static common::Result<std::unique_ptr<Engine>> start(EngineOptions options,
                                                       std::vector<BmcSlot> bmcs,
                                                       std::vector<ServiceSlot> services = {});
  ~Engine();  // stops
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Everything below is thread-safe, including from a handler on the loop thread.
  std::uint16_t port() const;
  std::uint16_t servicePort(std::size_t index) const;
  bool tls() const;
  std::vector<ServedBmc> bmcs() const;
  common::Result<ServedBmc> bmc(const std::string& id) const;
  common::Result<void> setFaults(const std::string& id, const LatencyModel& latency,
                                 const TransportFaults& transport);
  // A new key and certificate for NEW connections; returns the new fingerprint.
  common::Result<std::string> rotateCertificate(const std::string& id);
  EngineStats stats() const;
  // Closes every listener and connection and joins the loop thread. Idempotent.
  void stop();

 private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sim
