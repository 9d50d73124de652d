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

struct IntFlag {
  std::string_view name;
  int AgentArgs::*member;
  int min;
  int max;
};

// --interval-seconds: up to a day; --spool-max-batches: up to about 10 GB of queued batches.
constexpr IntFlag kIntFlags[] = {
    {"--max-attempts", &AgentArgs::max_attempts, 1, 100},
    {"--interval-seconds", &AgentArgs::interval_seconds, 1, 86400},
    {"--spool-max-batches", &AgentArgs::spool_max_batches, 1, 1000000},
    {"--intervals", &AgentArgs::intervals, 0, 100000000},
};

const IntFlag* intFlag(std::string_view flag) {
  for (const IntFlag& f : kIntFlags) {
    if (f.name == flag) return &f;
  }
  return nullptr;
}

Result<void> parseInt(const IntFlag& flag, const std::string& text, AgentArgs& args) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < flag.min ||
      value > flag.max) {
    return usage(std::string(flag.name) + " must be an integer from " + std::to_string(flag.min) +
                     " to " + std::to_string(flag.max),
                 std::string(flag.name));
  }
  args.*flag.member = value;
  return common::success();
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
  if (flag == "--state-dir") return &args.state_dir;
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
         "                         [--ca-file F] [--max-attempts N] [--state-dir DIR]\n"
         "       provisioner-agent monitor [--service-url URL] [--node ID] [--state-dir DIR]\n"
         "                         [--interval-seconds N (30)] [--spool-max-batches N (2880)]\n"
         "                         [--intervals N (0: until stopped)] [--backend ...]\n"
         "       provisioner-agent --local-task FILE [--backend simulated|cuda] [--sim-config F]\n"
         "The service URL, node and boot token default to provisioner.url, provisioner.node and\n"
         "provisioner.token on the kernel command line. A burn-in enrolls the node's monitor\n"
         "credential into --state-dir (default /var/lib/provisioner-agent); `monitor` reports GPU\n"
         "health with it every interval, queueing batches there while the service is away.\n"
         "--local-task runs one task (burn_in or wipe, as the service would send it) without the\n"
         "service and prints the result JSON.\n";
}

Result<AgentArgs> parseAgentArgs(const std::vector<std::string>& args) {
  AgentArgs parsed;
  std::size_t first = 0;
  if (!args.empty() && args[0] == "monitor") {
    parsed.monitor = true;
    first = 1;
  }
  for (std::size_t i = first; i < args.size(); ++i) {
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
    const IntFlag* number = intFlag(flag);
    if (target == nullptr && number == nullptr) {
      return usage("unknown flag '" + flag + "'", flag);
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) return usage(flag + " needs a value", flag);
      value = args[++i];
    }
    if (target != nullptr) {
      *target = std::move(value);
    } else {
      PROV_TRY(parseInt(*number, value, parsed));
    }
  }
  if (parsed.monitor && !parsed.local_task_file.empty()) {
    return usage("monitor takes no --local-task", "--local-task");
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
  if (args.token.empty() && !args.monitor) {
    return usage("no boot token: pass --token or boot with provisioner.token=", "--token");
  }
  return args;
}

}  // namespace agent
