// iPXE scripts the boot service answers with: boot an image, wait and retry, or boot local disk.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace images {

struct BootScriptSpec {
  std::string label;  // shown on the console: "node 42: ubuntu-burnin 2026.11.1"
  std::string kernel_url;
  std::string kernel_sha256;
  std::string initrd_url;
  std::string initrd_sha256;
  // Kernel command line: the image's own arguments, then key=value parameters in order.
  std::string image_kernel_args;
  std::vector<std::pair<std::string, std::string>> kernel_params;
  int retry_seconds = 30;  // what a failed download or checksum waits before starting over
};

// "#!ipxe" script: fetches kernel and initrd, checks each with sha256sum --set / iseq (and
// retries from the start on a mismatch), then boots. InvalidArgument "unsafe_boot_parameter"
// naming the parameter when a URL, key or value holds characters iPXE or the kernel command line
// would interpret (whitespace, quotes, '$', '#', control characters).
common::Result<std::string> renderBootScript(const BootScriptSpec& spec);
// Waits `seconds` (echoing the reason) and chains back to `retry_url`. Unsafe bytes in the URL are
// percent-encoded, except the iPXE setting "${net0/mac}", which iPXE fills in with the MAC.
std::string renderRetryScript(std::string_view reason, int seconds, std::string_view retry_url);
// Boots from the first local disk (sanboot --no-describe --drive 0x80, falling back to exit).
std::string renderLocalBootScript(std::string_view reason);

}  // namespace images
