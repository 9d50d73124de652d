// A short-lived cache of bearer-token checks, so a read does not cost a database round trip for
// its token. Revocation through this process clears it at once; elsewhere it shows within the TTL.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "provisioner/http/request.hpp"

namespace provisioner::api {

class TokenCache {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMaxEntries = 10000;

  explicit TokenCache(std::chrono::milliseconds ttl,
                      std::function<Clock::time_point()> now = &Clock::now)
      : ttl_(ttl), now_(std::move(now)) {}

  // The principal cached for this token hash, if fresh.
  std::optional<http::Principal> find(const std::string& token_hash);
  void put(const std::string& token_hash, const http::Principal& principal);
  // Forgets everything: called when a token is revoked.
  void clear();

 private:
  struct Entry {
    http::Principal principal;
    Clock::time_point expires;
  };
  std::chrono::milliseconds ttl_;
  std::function<Clock::time_point()> now_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace provisioner::api
