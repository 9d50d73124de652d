// The libcurl transport: one event-loop thread drives every BMC (sessions, limits, retries, TLS
// pinning); Transport::client hands out one redfish::Client per BMC.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "redfish/client.hpp"

namespace redfish {

namespace detail {
class Engine;
class BmcState;
}  // namespace detail

struct TlsPolicy {
  enum class Mode {
    kPinOnFirstUse,  // accept the first certificate seen, then require that same one
    kPinned,         // require `pinnedSha256`; another certificate fails the handshake
    kCaBundle,       // normal chain and host name verification against `caBundlePath`
    kInsecure,       // no verification at all (only when explicitly chosen)
  };
  Mode mode = Mode::kPinOnFirstUse;
  std::string pinnedSha256;  // 64 hex digits; ':' separators and upper case accepted
  std::string caBundlePath;
};

struct BmcEndpoint {
  std::string baseUrl;  // "https://10.1.2.3" or "http://127.0.0.1:8080"; a path is ignored
  std::string username;
  std::string password;
  TlsPolicy tls;
  // kAuto: a SessionService session when the service root links one, else basic auth.
  enum class Auth { kAuto, kSession, kBasic } auth = Auth::kAuto;
};

// What one attempt did, for tests and the benchmark (called on the transport's thread).
struct TraceEvent {
  std::string_view method;
  std::string_view url;
  long status = 0;   // 0 when the attempt failed below HTTP
  int curlCode = 0;  // CURLcode of the attempt
  int attempt = 1;   // 1 for the first try of a request
  bool willRetry = false;
  std::chrono::milliseconds retryIn{0};  // when willRetry: the backoff or the BMC's Retry-After
};

struct TransportOptions {
  std::size_t maxInFlightPerBmc = 2;
  std::size_t maxInFlightTotal = 1024;
  std::chrono::milliseconds requestTimeout{30000};
  std::chrono::milliseconds connectTimeout{10000};
  int maxAttempts = 4;  // including the first try
  std::chrono::milliseconds backoffBase{250};
  std::chrono::milliseconds backoffCap{10000};
  std::chrono::milliseconds retryAfterCap{60000};
  std::chrono::milliseconds closeTimeout{5000};  // session DELETE on close/shutdown
  std::size_t maxBodyBytes = std::size_t{16} << 20;
  std::function<void(const TraceEvent&)> trace;  // optional; must not block
};

struct TransportStats {
  std::uint64_t attempts = 0;           // HTTP attempts started, logins and retries included
  std::uint64_t retries = 0;            // attempts that were retries
  std::uint64_t logins = 0;             // session POSTs sent
  std::uint64_t connectionsOpened = 0;  // sum of CURLINFO_NUM_CONNECTS
  std::uint64_t completed = 0;          // user requests completed (any outcome)
  std::size_t peakInFlight = 0;         // most attempts in flight at once, all BMCs
  std::size_t inFlight = 0;
};

// One BMC. Requests queue per BMC (FIFO) under the per-BMC and global limits; authenticated ones
// wait behind the single login. Thread-safe; callbacks run on the transport's thread.
class BmcClient final : public Client {
 public:
  BmcClient(std::weak_ptr<detail::Engine> engine, std::shared_ptr<detail::BmcState> state);
  ~BmcClient() override;

  // When the transport is shut down, `done` runs at once on the caller's thread (bmc_cancelled).
  void sendAsync(Request request, ResponseCallback done) override;
  const std::string& baseUrl() const override;

  // SHA-256 of the leaf certificate last presented (64 lowercase hex), "" for http:// or before
  // the first TLS handshake.
  std::string certificateFingerprint() const;
  // Completes every queued, waiting and in-flight request of this BMC with bmc_cancelled.
  void cancelAll();
  // Cancels what is pending, then DELETEs the session (bounded by closeTimeout). Blocks; never
  // call from a callback. A later request logs in again.
  common::Result<void> close();
  // New credentials (e.g. after the claim step) for the next login; the open session is kept.
  void setCredentials(std::string username, std::string password);
  std::size_t peakInFlight() const;

 private:
  std::weak_ptr<detail::Engine> engine_;
  std::shared_ptr<detail::BmcState> state_;
};

class Transport {
 public:
  explicit Transport(TransportOptions options = {});
  ~Transport();  // shutdown(): no callback runs after this returns
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // The same client object for the same normalised base URL (scheme and host lower-cased,
  // default port dropped); the first endpoint's credentials and TLS policy stay. Errors:
  // kInvalidArgument for a URL that is not http(s)://host[:port] or a malformed pin.
  common::Result<std::shared_ptr<BmcClient>> client(const BmcEndpoint& endpoint);
  TransportStats stats() const;
  // Cancels everything (bmc_cancelled), DELETEs every open session (bounded by closeTimeout),
  // stops the thread. Idempotent; blocks; never call from a callback.
  void shutdown();

 private:
  std::shared_ptr<detail::Engine> engine_;
};

}  // namespace redfish
