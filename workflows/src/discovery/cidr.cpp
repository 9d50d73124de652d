// IPv4 CIDR expansion for subnet sweeps. Bounded to /16 so that a typo cannot start a sweep of
// millions of addresses.
#include <arpa/inet.h>

#include <charconv>
#include <cstdint>

#include "workflows/discovery.hpp"

namespace workflows {
namespace {

constexpr int kWidestPrefix = 16;

common::Error invalidCidr(const std::string& why) {
  return common::invalidArgument("invalid_cidr", why, "cidr");
}

std::string dotted(std::uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xff) + "." +
         std::to_string((address >> 8) & 0xff) + "." + std::to_string(address & 0xff);
}

}  // namespace

common::Result<std::vector<std::string>> expandCidr(const std::string& cidr) {
  const auto slash = cidr.find('/');
  if (slash == std::string::npos)
    return invalidCidr("cidr must be address/prefix, e.g. 10.0.0.0/24");
  const std::string address = cidr.substr(0, slash);
  const std::string prefix_text = cidr.substr(slash + 1);
  in_addr parsed{};
  if (address.empty() || inet_pton(AF_INET, address.c_str(), &parsed) != 1) {
    return invalidCidr("cidr address is not an IPv4 address");
  }
  int prefix = -1;
  const char* end = prefix_text.data() + prefix_text.size();
  auto [ptr, ec] = std::from_chars(prefix_text.data(), end, prefix);
  if (prefix_text.empty() || prefix_text.size() > 2 || ec != std::errc() || ptr != end ||
      prefix > 32) {
    return invalidCidr("cidr prefix must be a number from 16 to 32");
  }
  if (prefix < kWidestPrefix) return invalidCidr("cidr prefix wider than /16 is refused");
  const std::uint32_t host_bits = 32U - static_cast<std::uint32_t>(prefix);
  const std::uint32_t mask = host_bits == 32 ? 0U : ~((1U << host_bits) - 1U);
  const std::uint32_t network = ntohl(parsed.s_addr) & mask;
  const std::uint32_t size = 1U << host_bits;
  // Below /31 the network and broadcast addresses are no hosts (RFC 3021 keeps both of a /31).
  const std::uint32_t first = prefix < 31 ? 1 : 0;
  const std::uint32_t last = prefix < 31 ? size - 2 : size - 1;
  std::vector<std::string> hosts;
  hosts.reserve(last - first + 1);
  for (std::uint32_t i = first; i <= last; ++i) hosts.push_back(dotted(network + i));
  return hosts;
}

}  // namespace workflows
