// bmc-sim: serves a simulated BMC fleet (or one recorded dump) until SIGTERM/SIGINT.
//   bmc-sim --fleet FILE [--control-port N] [--state-file PATH] [--time-scale X]
//           [--latency-ms X] [--seed N] [--http] [--profiles DIR] [--boot-service URL]
//           [--host-state-dir DIR] [--monitor-interval S]
//   bmc-sim --static DIR [--address A] [--port P] [--http] [--control-port N] [--state-file PATH]
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "simulator/control_api.hpp"
#include "simulator/fleet.hpp"

namespace {

struct Args {
  std::string fleetFile;
  std::string staticDir;
  std::string address = "127.0.0.1";
  std::optional<int> port;
  bool http = false;
  int controlPort = 0;
  std::string stateFile;
  std::string profilesDir;
  std::optional<double> timeScale;
  std::optional<double> latencyMs;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> bootService;
  std::optional<std::string> hostStateDir;
  std::optional<int> monitorInterval;
};

constexpr const char* kUsage =
    "usage: bmc-sim --fleet FILE [--control-port N] [--state-file PATH] [--time-scale X]\n"
    "               [--latency-ms X] [--seed N] [--http] [--profiles DIR]\n"
    "               [--boot-service URL] [--host-state-dir DIR] [--monitor-interval S]\n"
    "       bmc-sim --static DIR [--address A] [--port P] [--http] [--control-port N]\n"
    "               [--state-file PATH]\n";

void logJson(spdlog::level::level_enum level, const std::string& message) {
  spdlog::log(level, "{}", nlohmann::json(message).dump());  // a quoted, escaped JSON string
}

void setUpLogging() {
  auto logger = spdlog::stderr_logger_mt("bmc-sim");
  logger->set_pattern(
      R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","component":"bmc-sim","msg":%v})");
  spdlog::set_default_logger(logger);
}

bool parseNumber(const std::string& text, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<Args> parseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--http") {
      args.http = true;
      continue;
    }
    if (i + 1 >= argc) return std::nullopt;
    std::string value = argv[++i];
    double number = 0;
    bool numeric = parseNumber(value, number);
    if (flag == "--fleet")
      args.fleetFile = value;
    else if (flag == "--static")
      args.staticDir = value;
    else if (flag == "--address")
      args.address = value;
    else if (flag == "--state-file")
      args.stateFile = value;
    else if (flag == "--profiles")
      args.profilesDir = value;
    else if (flag == "--boot-service")
      args.bootService = value;
    else if (flag == "--host-state-dir")
      args.hostStateDir = value;
    else if (flag == "--monitor-interval" && numeric && number >= 1 && number <= 3600)
      args.monitorInterval = static_cast<int>(number);
    else if (flag == "--port" && numeric && number >= 0 && number <= 65535)
      args.port = int(number);
    else if (flag == "--control-port" && numeric && number >= 0 && number <= 65535) {
      args.controlPort = static_cast<int>(number);
    } else if (flag == "--time-scale" && numeric && number > 0)
      args.timeScale = number;
    else if (flag == "--latency-ms" && numeric && number >= 0)
      args.latencyMs = number;
    else if (flag == "--seed" && numeric && number >= 0)
      args.seed = std::uint64_t(number);
    else
      return std::nullopt;
  }
  if (args.fleetFile.empty() == args.staticDir.empty()) return std::nullopt;
  return args;
}

common::Result<sim::FleetSpec> buildSpec(const Args& args) {
  sim::FleetSpec spec;
  if (!args.fleetFile.empty()) {
    PROV_ASSIGN(spec, sim::loadFleetSpecFile(args.fleetFile));
  } else {
    spec.staticDumpDir = args.staticDir;
    spec.staticAddress = args.address;
  }
  if (args.port) spec.port = static_cast<std::uint16_t>(*args.port);
  if (args.http) spec.tls = false;
  if (args.timeScale) spec.timeScale = *args.timeScale;
  if (args.seed) spec.seed = *args.seed;
  if (args.latencyMs) sim::overrideLatency(spec, *args.latencyMs);
  if (args.bootService) {
    // Validated as the fleet file's boot.service_url is.
    nlohmann::json boot = {{"ca_file", spec.boot.caFile},
                           {"max_script_retries", spec.boot.maxScriptRetries}};
    boot["service_url"] = *args.bootService;
    PROV_ASSIGN(auto parsed, sim::parseBootSettings(boot));
    spec.boot.serviceUrl = parsed.serviceUrl;
  }
  if (args.hostStateDir) spec.boot.hostStateDir = *args.hostStateDir;
  if (args.monitorInterval) spec.boot.monitorIntervalSeconds = *args.monitorInterval;
  return spec;
}

bool writeStateFile(const std::string& path, const sim::Fleet& fleet) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << sim::endpointsJson(fleet.bmcs()).dump(2) << "\n";
    if (!out) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

// Blocks SIGTERM/SIGINT in every thread (the engine's inherits the mask) and waits for one.
sigset_t stopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

}  // namespace

int main(int argc, char** argv) {
  setUpLogging();
  auto args = parseArgs(argc, argv);
  if (!args) {
    std::cerr << kUsage;
    return 2;
  }
  auto spec = buildSpec(*args);
  if (!spec) {
    logJson(spdlog::level::err, spec.error().message);
    return 2;
  }
  sigset_t signals = stopSignals();
  sim::FleetOptions options;
  options.controlPort = static_cast<std::uint16_t>(args->controlPort);
  options.profilesDir = args->profilesDir;
  auto fleet = sim::Fleet::start(std::move(*spec), options);
  if (!fleet) {
    logJson(spdlog::level::err,
            "cannot start: " + fleet.error().message +
                (fleet.error().field.empty() ? "" : " (" + fleet.error().field + ")"));
    return 1;
  }
  if (!args->stateFile.empty() && !writeStateFile(args->stateFile, **fleet)) {
    logJson(spdlog::level::err, "cannot write the state file " + args->stateFile);
    return 1;
  }
  logJson(spdlog::level::info, "serving " + std::to_string((*fleet)->size()) + " BMCs on port " +
                                   std::to_string((*fleet)->port()));
  std::cerr << "bmc-sim ready: " << (*fleet)->size()
            << " BMCs, control http://127.0.0.1:" << (*fleet)->controlPort() << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  logJson(spdlog::level::info, "stopping on signal " + std::to_string(received));
  (*fleet)->stop();
  return 0;
}
