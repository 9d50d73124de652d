#include "flags.hpp"

#include <algorithm>
#include <cctype>

namespace provisioner::service::bmc {
namespace {

enum class Kind { kUnknown, kValued, kRepeated, kSwitch };

const std::vector<std::string> kConnectionValued = {"--url", "--username", "--password", "--ca",
                                                    "--pin"};

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

Kind kindOf(const std::string& flag, const FlagSpec& spec) {
  if (listed(kConnectionValued, flag) || listed(spec.valued, flag)) return Kind::kValued;
  if (listed(spec.repeated, flag)) return Kind::kRepeated;
  if (flag == "--insecure" || listed(spec.switches, flag)) return Kind::kSwitch;
  return Kind::kUnknown;
}

std::optional<std::string> normalisedPin(std::string pin) {
  pin.erase(std::remove(pin.begin(), pin.end(), ':'), pin.end());
  std::transform(pin.begin(), pin.end(), pin.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool hex =
      std::all_of(pin.begin(), pin.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
  if (pin.size() != 64 || !hex) return std::nullopt;
  return pin;
}

// A connection flag's value into `options`; the problem, or "".
std::string setConnection(const std::string& flag, const std::string& value,
                          BmcConnectOptions& options) {
  if (flag == "--url") {
    options.url = value;
  } else if (flag == "--username") {
    options.username = value;
  } else if (flag == "--password") {
    options.password = value;
  } else if (flag == "--ca") {
    options.caFile = value;
  } else if (flag == "--pin") {
    auto pin = normalisedPin(value);
    if (!pin) return "--pin takes a SHA-256 fingerprint (64 hex digits)";
    options.pinSha256 = *pin;
  }
  return {};
}

std::string checkConnection(const BmcConnectOptions& options) {
  if (options.url.rfind("https://", 0) != 0 && options.url.rfind("http://", 0) != 0) {
    return "--url must be an http:// or https:// URL";
  }
  if (options.username.empty()) return "--username is required";
  if (options.password.empty()) return "--password is required";
  const int verifyModes = static_cast<int>(!options.caFile.empty()) +
                          static_cast<int>(!options.pinSha256.empty()) +
                          static_cast<int>(options.insecure);
  if (verifyModes > 1) return "--ca, --pin and --insecure exclude each other";
  return {};
}

}  // namespace

bool ParsedFlags::has(const std::string& flag) const {
  return listed(switches, flag) || values.count(flag) != 0;
}

std::optional<std::string> ParsedFlags::value(const std::string& flag) const {
  auto found = values.find(flag);
  if (found == values.end() || found->second.empty()) return std::nullopt;
  return found->second.back();
}

std::vector<std::string> ParsedFlags::all(const std::string& flag) const {
  auto found = values.find(flag);
  return found == values.end() ? std::vector<std::string>{} : found->second;
}

std::string parseFlags(const std::vector<std::string>& args, const FlagSpec& spec,
                       ParsedFlags& out) {
  std::vector<std::string> seen;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--help" || word == "-h") {
      out.help = true;
      return {};
    }
    if (word.rfind("--", 0) != 0 || word.size() == 2) {
      // Not echoed: a stray word may be half of a password.
      return "unexpected argument #" + std::to_string(i) + " after " + args[0] +
             " (flags start with --)";
    }
    const auto equals = word.find('=');
    const std::string flag = word.substr(0, equals);
    const Kind kind = kindOf(flag, spec);
    if (kind == Kind::kUnknown) return "unknown flag " + flag + " for bmc " + args[0];
    if (kind == Kind::kSwitch) {
      if (equals != std::string::npos) return "flag " + flag + " takes no value";
      if (flag == "--insecure") {
        out.connect.insecure = true;
      } else if (!listed(out.switches, flag)) {
        out.switches.push_back(flag);
      }
      continue;
    }
    std::string value;
    if (equals != std::string::npos) {
      value = word.substr(equals + 1);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      value = args[++i];
    }
    if (value.empty()) return "flag " + flag + " needs a value";
    if (kind == Kind::kValued && listed(seen, flag)) return "flag " + flag + " given twice";
    seen.push_back(flag);
    if (listed(kConnectionValued, flag)) {
      if (auto problem = setConnection(flag, value, out.connect); !problem.empty()) return problem;
    } else {
      out.values[flag].push_back(std::move(value));
    }
  }
  return checkConnection(out.connect);
}

}  // namespace provisioner::service::bmc
