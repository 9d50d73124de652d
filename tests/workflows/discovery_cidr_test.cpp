#include <catch2/catch.hpp>

#include "workflows/discovery.hpp"

using workflows::expandCidr;

TEST_CASE("expandCidr leaves out the network and broadcast addresses", "[workflows][discovery]") {
  auto hosts = expandCidr("192.168.10.0/29");
  REQUIRE(hosts);
  CHECK(*hosts == std::vector<std::string>{"192.168.10.1", "192.168.10.2", "192.168.10.3",
                                           "192.168.10.4", "192.168.10.5", "192.168.10.6"});
}

TEST_CASE("expandCidr masks host bits of the given address", "[workflows][discovery]") {
  auto hosts = expandCidr("10.0.0.77/30");
  REQUIRE(hosts);
  CHECK(*hosts == std::vector<std::string>{"10.0.0.77", "10.0.0.78"});
}

TEST_CASE("expandCidr keeps both addresses of a /31 and the one of a /32",
          "[workflows][discovery]") {
  auto pair = expandCidr("10.0.0.4/31");
  REQUIRE(pair);
  CHECK(*pair == std::vector<std::string>{"10.0.0.4", "10.0.0.5"});
  auto one = expandCidr("10.0.0.9/32");
  REQUIRE(one);
  CHECK(*one == std::vector<std::string>{"10.0.0.9"});
}

TEST_CASE("expandCidr covers a /16 and refuses anything wider", "[workflows][discovery]") {
  auto wide = expandCidr("172.16.0.0/16");
  REQUIRE(wide);
  CHECK(wide->size() == 65534);
  CHECK(wide->front() == "172.16.0.1");
  CHECK(wide->back() == "172.16.255.254");
  auto wider = expandCidr("172.16.0.0/15");
  REQUIRE_FALSE(wider);
  CHECK(wider.error().code == "invalid_cidr");
  CHECK(wider.error().field == "cidr");
}

TEST_CASE("expandCidr refuses malformed input", "[workflows][discovery]") {
  for (const char* bad :
       {"", "10.0.0.0", "10.0.0.0/", "/24", "10.0.0/24", "10.0.0.256/24", "10.0.0.0/33",
        "10.0.0.0/-1", "10.0.0.0/24x", "::1/128", "10.0.0.0/024", "host/24"}) {
    INFO(bad);
    auto r = expandCidr(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == "invalid_cidr");
  }
}
