#include <catch2/catch.hpp>

#include "provisioner/api/token_cache.hpp"

using provisioner::api::TokenCache;

TEST_CASE("token cache entries expire after the TTL on the injected clock", "[unit][auth]") {
  TokenCache::Clock::time_point now{};
  TokenCache cache(std::chrono::seconds(5), [&now] { return now; });
  provisioner::http::Principal alice{7, "alice", provisioner::http::Role::kAsset};
  CHECK_FALSE(cache.find("h1").has_value());
  cache.put("h1", alice);
  now += std::chrono::seconds(4);
  auto hit = cache.find("h1");
  REQUIRE(hit.has_value());
  CHECK(hit->token_id == 7);
  CHECK(hit->role == provisioner::http::Role::kAsset);
  now += std::chrono::seconds(1);
  CHECK_FALSE(cache.find("h1").has_value());
}

TEST_CASE("clearing the token cache forgets every token", "[unit][auth]") {
  TokenCache cache(std::chrono::hours(1));
  cache.put("h1", {1, "a", provisioner::http::Role::kViewer});
  cache.put("h2", {2, "b", provisioner::http::Role::kAdmin});
  cache.clear();
  CHECK_FALSE(cache.find("h1").has_value());
  CHECK_FALSE(cache.find("h2").has_value());
}
