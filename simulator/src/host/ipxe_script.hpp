// Reading the iPXE scripts the service renders (images/src/ipxe.cpp): a boot script (kernel +
// command line, initrd, their SHA-256 digests, its retry loop), a wait-and-retry script (sleep,
// then chain to a URL) or a local-disk script (sanboot). The script comes from the network: it is
// untrusted.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace sim::host {

enum class ScriptKind { kBoot, kRetry, kLocalDisk };

struct IpxeScript {
  ScriptKind kind = ScriptKind::kRetry;
  std::string kernelUrl;
  std::string kernelArgs;  // the kernel line after the URL, single-spaced
  std::string initrdUrl;
  std::string kernelSha256;  // expected digests, when the script checks them (lowercase hex)
  std::string initrdSha256;
  int sleepSeconds = 0;  // wait-and-retry: the first `sleep`; a boot script: its retry pause
  // A boot script that loops back (`goto`) after a failed download or a checksum mismatch,
  // sleeping sleepSeconds first, as the service's scripts do: the host starts over instead of
  // giving up.
  bool retriesOnFailure = false;
  std::string chainUrl;  // wait-and-retry: where to ask next (empty: ask the same URL again)
};

// InvalidArgument "invalid_ipxe_script" when the text is not an iPXE script or does none of the
// three things above.
common::Result<IpxeScript> parseIpxeScript(std::string_view text);

}  // namespace sim::host
