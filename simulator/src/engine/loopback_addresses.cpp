// Each simulated BMC gets its own loopback address: Linux routes all of 127.0.0.0/8 to lo, so
// binding 127.20.0.7 needs no setup.
#include <arpa/inet.h>

#include "simulator/engine.hpp"

namespace sim {

common::Result<std::vector<std::string>> loopbackAddresses(const std::string& base,
                                                           std::size_t count) {
  in_addr parsed{};
  if (inet_pton(AF_INET, base.c_str(), &parsed) != 1 || (ntohl(parsed.s_addr) >> 24) != 127) {
    return common::invalidArgument(
        "bad_address_base", "address_base must be an IPv4 address in 127.0.0.0/8", "address_base");
  }
  std::uint32_t next = ntohl(parsed.s_addr);
  std::vector<std::string> out;
  out.reserve(count);
  while (out.size() < count) {
    if ((next >> 24) != 127) {
      return common::invalidArgument("address_range_exhausted",
                                     "too many BMCs for the loopback range from " + base,
                                     "address_base");
    }
    std::uint32_t host = next & 0xff;
    if (host != 0 && host != 255) {
      in_addr address{htonl(next)};
      char text[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, &address, text, sizeof text);
      out.emplace_back(text);
    }
    ++next;
  }
  return out;
}

}  // namespace sim
