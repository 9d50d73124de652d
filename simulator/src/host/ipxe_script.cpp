#include "host/ipxe_script.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <sstream>
#include <vector>

namespace sim::host {
namespace {

constexpr std::size_t kMaxScript = 64 * 1024;
constexpr int kMaxSleepSeconds = 24 * 3600;

common::Error invalid(const std::string& why) {
  return common::invalidArgument("invalid_ipxe_script", "iPXE script: " + why);
}

// The words of one command, without what follows "||" or "&&" (the fallback branch).
std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string word; in >> word;) {
    if (word == "||" || word == "&&") break;
    out.push_back(std::move(word));
  }
  return out;
}

// An image command (kernel, initrd, chain): options, then the URL, then arguments.
struct ImageCommand {
  std::string name;  // --name, or the URL's last path segment
  std::string url;
  std::string args;
};

bool takesValue(std::string_view option) {
  return option == "--name" || option == "-n" || option == "--timeout" || option == "-t";
}

ImageCommand imageCommand(const std::vector<std::string>& w) {
  ImageCommand command;
  std::size_t i = 1;
  for (; i < w.size() && w[i].rfind("-", 0) == 0; ++i) {
    if (w[i].rfind("--name=", 0) == 0) command.name = w[i].substr(7);
    if (takesValue(w[i]) && i + 1 < w.size()) {
      if (w[i] == "--name" || w[i] == "-n") command.name = w[i + 1];
      ++i;
    }
  }
  if (i < w.size()) command.url = w[i++];
  for (; i < w.size(); ++i) command.args += (command.args.empty() ? "" : " ") + w[i];
  if (command.name.empty()) {
    std::string_view path = std::string_view(command.url).substr(0, command.url.find('?'));
    command.name = std::string(path.substr(path.rfind('/') + 1));
  }
  return command;
}

bool isSha256Hex(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c));
         });
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "${name}" -> "name"; anything else -> "".
std::string settingName(const std::string& word) {
  if (word.size() < 4 || word.rfind("${", 0) != 0 || word.back() != '}') return "";
  return word.substr(2, word.size() - 3);
}

struct Reading {
  IpxeScript script;
  bool hasKernel = false;
  bool hasSleep = false;
  bool chains = false;
  bool loops = false;  // a `goto`: the script starts over somewhere
  bool sanboot = false;
  std::string kernelName;
  std::string initrdName;
  std::map<std::string, std::string> hashOf;    // setting -> image name (sha256sum --set)
  std::map<std::string, std::string> expected;  // image name -> digest (iseq)
};

void readIseq(const std::vector<std::string>& w, Reading& r) {
  if (w.size() < 3) return;
  std::string setting = settingName(w[1]);
  std::string digest = w[2];
  if (setting.empty()) {  // "iseq <digest> ${setting}"
    setting = settingName(w[2]);
    digest = w[1];
  }
  auto image = r.hashOf.find(setting);
  if (image != r.hashOf.end() && isSha256Hex(digest)) r.expected[image->second] = lower(digest);
}

void readCommand(const std::vector<std::string>& w, Reading& r) {
  const std::string& verb = w.front();
  if (verb == "kernel" && !r.hasKernel) {
    ImageCommand command = imageCommand(w);
    r.hasKernel = true;
    r.kernelName = command.name;
    r.script.kernelUrl = command.url;
    r.script.kernelArgs = command.args;
  } else if (verb == "initrd" && r.script.initrdUrl.empty()) {
    ImageCommand command = imageCommand(w);
    r.initrdName = command.name;
    r.script.initrdUrl = command.url;
  } else if (verb == "sha256sum" && w.size() >= 4 && w[1] == "--set") {
    r.hashOf[w[2]] = w[3];
  } else if (verb == "iseq") {
    readIseq(w, r);
  } else if (verb == "sleep" && !r.hasSleep && w.size() >= 2) {
    int seconds = 0;
    auto [end, ec] = std::from_chars(w[1].data(), w[1].data() + w[1].size(), seconds);
    if (ec == std::errc() && end == w[1].data() + w[1].size() && seconds >= 0) {
      r.hasSleep = true;
      r.script.sleepSeconds = std::min(seconds, kMaxSleepSeconds);
    }
  } else if (verb == "chain" && !r.chains) {
    r.chains = true;
    r.script.chainUrl = imageCommand(w).url;
  } else if (verb == "goto") {
    r.loops = true;
  } else if (verb == "sanboot" || verb == "exit") {
    r.sanboot = true;
  }
}

common::Result<IpxeScript> finish(Reading r) {
  if (r.hasKernel) {
    if (r.script.kernelUrl.empty()) return invalid("the kernel command names no URL");
    if (r.script.initrdUrl.empty()) return invalid("a kernel but no initrd");
    r.script.kind = ScriptKind::kBoot;
    r.script.kernelSha256 = r.expected[r.kernelName];
    r.script.initrdSha256 = r.expected[r.initrdName];
    r.script.retriesOnFailure = r.loops && r.hasSleep;
    return r.script;
  }
  if (r.chains || r.hasSleep) {
    r.script.kind = ScriptKind::kRetry;
    return r.script;
  }
  if (r.sanboot) {
    r.script.kind = ScriptKind::kLocalDisk;
    return r.script;
  }
  return invalid("neither boots an image, retries nor boots the local disk");
}

}  // namespace

common::Result<IpxeScript> parseIpxeScript(std::string_view text) {
  if (text.size() > kMaxScript) return invalid("longer than 64 KiB");
  if (text.rfind("#!ipxe", 0) != 0) return invalid("does not start with #!ipxe");
  Reading reading;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> w = words(line);
    if (w.empty() || w.front().front() == '#' || w.front().front() == ':') continue;
    readCommand(w, reading);
  }
  return finish(std::move(reading));
}

}  // namespace sim::host
