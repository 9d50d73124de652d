#include "provisioner/api/token_cache.hpp"

namespace provisioner::api {

std::optional<http::Principal> TokenCache::find(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(token_hash);
  if (it == entries_.end()) return std::nullopt;
  if (now_() >= it->second.expires) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.principal;
}

void TokenCache::put(const std::string& token_hash, const http::Principal& principal) {
  std::lock_guard lock(mutex_);
  // Bounded: a flood of distinct valid tokens cannot grow memory; the next lookups refill it.
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_[token_hash] = Entry{principal, now_() + ttl_};
}

void TokenCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

}  // namespace provisioner::api
