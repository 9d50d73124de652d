// HTTP GETs the simulated host makes while it network-boots (the iPXE script, the kernel, the
// initrd), hashing the body as it streams in so that large artifacts are never held in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "common/result.hpp"

namespace sim::host {

struct FetchOptions {
  std::string caFile;             // PEM bundle for https; empty: the system's
  std::size_t keepBodyLimit = 0;  // keep the body up to this size (larger is an error); 0: drop it
  std::function<bool()> keepGoing;  // polled as data arrives; false aborts (the host rebooted)
};

struct Fetched {
  std::string body;    // only when keepBodyLimit > 0
  std::string sha256;  // lowercase hex of the whole body
  std::uint64_t size = 0;
};

// Any status but 200 is an error naming the URL and the status; so are connection failures.
common::Result<Fetched> httpGet(const std::string& url, const FetchOptions& options);

}  // namespace sim::host
