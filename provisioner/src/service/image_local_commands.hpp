// The offline half of `provisioner image`: keygen, manifest, sign and verify work on local files
// only (no service, no database), so images can be built and signed on a build machine.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace provisioner::service {

// `args` are the words after "image". Commands:
//   keygen   --out PREFIX                      PREFIX.key (mode 0600) and PREFIX.pub; never
//                                              overwrites
//   manifest --name N --version V --kernel F --initrd F [--rootfs F] [--kernel-args S]
//            [--description D] [--out FILE]    digests and sizes computed from the files
//   sign     --key KEY --manifest FILE [--out FILE]   a bare manifest or a signed document
//   verify   --signed FILE --trusted-key PUB [--trusted-key PUB...] [--artifacts-dir DIR]
// Exit codes: 0 ok, 1 a check or file operation failed ("<code>: <message>" on `err`), 2 usage.
// Returns -1 when args is empty or args[0] is not one of these (the caller handles it).
// Private key material is never printed.
int runImageLocalCommand(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err);

}  // namespace provisioner::service
