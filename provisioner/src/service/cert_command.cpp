// `provisioner cert verify`: reads the three files and reports what verifyCertificate() found.
#include "cert_command.hpp"

#include <fstream>
#include <optional>
#include <sstream>

#include "workflows/decommission/certificate.hpp"

namespace provisioner::service {
namespace {

constexpr int kExitVerified = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr std::string_view kUsage =
    "usage: provisioner cert verify CERT.json --signature CERT.sig --public-key KEY.pem\n";

struct VerifyArgs {
  std::string certificate;
  std::string signature;
  std::string public_key;
};

std::optional<VerifyArgs> parseVerifyArgs(const std::vector<std::string>& args) {
  VerifyArgs parsed;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& word = args[i];
    if ((word == "--signature" || word == "--public-key") && i + 1 < args.size()) {
      (word == "--signature" ? parsed.signature : parsed.public_key) = args[++i];
    } else if (!word.starts_with("--") && parsed.certificate.empty()) {
      parsed.certificate = word;
    } else {
      return std::nullopt;
    }
  }
  if (parsed.certificate.empty() || parsed.signature.empty() || parsed.public_key.empty()) {
    return std::nullopt;
  }
  return parsed;
}

std::optional<std::string> readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

int verify(const VerifyArgs& a, std::ostream& out, std::ostream& err) {
  std::string contents[3];
  const std::string* paths[3] = {&a.certificate, &a.signature, &a.public_key};
  for (int i = 0; i < 3; ++i) {
    auto text = readWhole(*paths[i]);
    if (!text) {
      err << "unreadable_file: cannot read " << *paths[i] << "\n";
      return kExitFailed;
    }
    contents[i] = std::move(*text);
  }
  auto verified = workflows::decommission::verifyCertificate(contents[0], contents[1], contents[2]);
  if (!verified) {
    err << verified.error().code << ": " << a.certificate << ": " << verified.error().message
        << "\n";
    return kExitFailed;
  }
  out << "verified: decommission " << verified->decommission_id << " of node " << verified->node_id
      << " (chassis " << verified->chassis_serial << "), " << verified->devices
      << " device(s), issued " << verified->issued_at << ", key " << verified->key_id << ", sha256 "
      << verified->sha256 << "\n";
  return kExitVerified;
}

}  // namespace

int runCertCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args.front() == "--help" || args.front() == "help")) {
    out << kUsage;
    return kExitVerified;
  }
  if (args.empty() || args.front() != "verify") {
    err << kUsage;
    return kExitUsage;
  }
  auto parsed = parseVerifyArgs(args);
  if (!parsed) {
    err << kUsage;
    return kExitUsage;
  }
  return verify(*parsed, out, err);
}

}  // namespace provisioner::service
