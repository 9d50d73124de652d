#include "agent/cmdline.hpp"

#include <cctype>
#include <charconv>

namespace agent {

using common::Result;

namespace {

std::vector<std::string> splitCmdline(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  bool quoted = false;
  bool in_word = false;
  for (char c : text) {
    if (c == '"') {
      quoted = !quoted;
      in_word = true;
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(current));
      current.clear();
      in_word = false;
    } else {
      current += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(current));
  return words;
}

common::Error usage(const std::string& message, const std::string& field) {
  return common::invalidArgument("usage", message, field);
}

Result<int> parseAttempts(const std::string& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > 100) {
    return usage("--max-attempts must be an integer from 1 to 100", "--max-attempts");
  }
  return value;
}

// The flag's string member, or nullptr for a flag we do not know.
std::string* stringFlag(AgentArgs& args, std::string_view flag) {
  if (flag == "--service-url") return &args.service_url;
  if (flag == "--node") return &args.node_id;
  if (flag == "--token") return &args.token;
  if (flag == "--cmdline") return &args.cmdline_file;
  if (flag == "--backend") return &args.backend;
  if (flag == "--sim-config") return &args.sim_config_file;
  if (flag == "--ca-file") return &args.ca_file;
  if (flag == "--local-task") return &args.local_task_file;
  return nullptr;
}

}  // namespace

KernelParams parseKernelCmdline(std::string_view text) {
  KernelParams params;
  for (const std::string& word : splitCmdline(text)) {
    auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    std::string_view key(word.data(), eq);
    std::string value = word.substr(eq + 1);
    if (key == "provisioner.url") {
      params.url = std::move(value);
    } else if (key == "provisioner.node") {
      params.node = std::move(value);
    } else if (key == "provisioner.token") {
      params.token = std::move(value);
    }
  }
  return params;
}

std::string agentUsage() {
  return "usage: provisioner-agent [--service-url URL] [--node ID] [--token T]\n"
         "                         [--cmdline FILE (default /proc/cmdline)]\n"
         "                         [--backend simulated|cuda] [--sim-config FILE]\n"
         "                         [--ca-file F] [--max-attempts N]\n"
         "       provisioner-agent --local-task FILE [--backend simulated|cuda] [--sim-config F]\n"
         "The service URL, node and boot token default to provisioner.url, provisioner.node and\n"
         "provisioner.token on the kernel command line. --local-task runs one task (burn_in or\n"
         "wipe, as the service would send it) without the service and prints the result JSON.\n";
}

Result<AgentArgs> parseAgentArgs(const std::vector<std::string>& args) {
  AgentArgs parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool inline_value = false;
    if (auto eq = flag.find('='); flag.starts_with("--") && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
      inline_value = true;
    }
    if (flag == "--help" || flag == "-h") {
      parsed.help = true;
      continue;
    }
    std::string* target = stringFlag(parsed, flag);
    if (target == nullptr && flag != "--max-attempts") {
      return usage("unknown flag '" + flag + "'", flag);
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) return usage(flag + " needs a value", flag);
      value = args[++i];
    }
    if (target != nullptr) {
      *target = std::move(value);
    } else {
      PROV_ASSIGN(parsed.max_attempts, parseAttempts(value));
    }
  }
  if (!parsed.backend.empty() && parsed.backend != "simulated" && parsed.backend != "cuda") {
    return usage("--backend must be simulated or cuda", "--backend");
  }
  return parsed;
}

Result<AgentArgs> applyKernelParams(AgentArgs args, const KernelParams& params) {
  if (args.service_url.empty()) args.service_url = params.url;
  if (args.node_id.empty()) args.node_id = params.node;
  if (args.token.empty()) args.token = params.token;
  if (args.service_url.empty()) {
    return usage("no service URL: pass --service-url or boot with provisioner.url=",
                 "--service-url");
  }
  if (args.node_id.empty()) {
    return usage("no node id: pass --node or boot with provisioner.node=", "--node");
  }
  if (args.token.empty()) {
    return usage("no boot token: pass --token or boot with provisioner.token=", "--token");
  }
  return args;
}

}  // namespace agent
