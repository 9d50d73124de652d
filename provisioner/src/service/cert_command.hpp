// `provisioner cert verify CERT.json --signature CERT.sig --public-key KEY.pem`: offline check of
// a sanitization certificate (no service, no database).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace provisioner::service {

// `args` are the words after "cert". Exit codes: 0 verified (a one-line summary on `out`),
// 1 a check or a file read failed ("<code>: <message>" on `err`), 2 usage.
int runCertCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace provisioner::service
