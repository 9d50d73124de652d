// One HTTP exchange with the service, retried on connection errors, timeouts, 429 and 5xx.
// Internal to agent_runtime; the ServiceClient builds the API on it.
#pragma once

#include <memory>
#include <random>
#include <string>

#include "agent/service_client.hpp"

namespace httplib {
class Client;
}

namespace agent::transport {

struct Reply {
  int status = 0;
  std::string body;
  int attempts = 0;  // how many were made; > 1 means an earlier one may have been applied
};

// scheme://host[:port] and the path prefix of a base URL.
struct Endpoint {
  std::string scheme_host_port;
  std::string path_prefix;
};
common::Result<Endpoint> parseBaseUrl(const std::string& url);

class Transport {
 public:
  Transport(ServiceClientOptions options, Endpoint endpoint);
  ~Transport();

  // The final answer: 2xx or a status not worth retrying (4xx other than 429). An error only
  // when every attempt failed to get such an answer.
  // `max_attempts` 0: the retry policy's. `idempotency_key`, when set, goes with every attempt
  // (Idempotency-Key): the service knows a retry of a call it may have taken already.
  common::Result<Reply> exchange(const std::string& method, const std::string& path,
                                 const std::string& body, const std::string& token,
                                 int max_attempts = 0, const std::string& idempotency_key = "");

 private:
  void wait(int attempt, int max_attempts, const std::string& why,
            std::chrono::milliseconds at_least);

  ServiceClientOptions options_;
  Endpoint endpoint_;
  std::unique_ptr<httplib::Client> client_;
  std::mt19937_64 jitter_;
};

// A non-2xx reply as an Error: the problem's code and detail, the kind from the status.
common::Error errorFromReply(const Reply& reply, const std::string& what);

}  // namespace agent::transport
