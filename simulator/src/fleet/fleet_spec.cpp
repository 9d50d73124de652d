// Parsing the fleet file. Every error names the field it is about, so a typo in a 50-rack file
// is found at once.
#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "simulator/fleet.hpp"

namespace sim {
namespace {

using Json = nlohmann::json;

common::Error bad(const std::string& field, const std::string& expected) {
  return common::invalidArgument("invalid_fleet", field + " must be " + expected, field);
}

// Faults errors name the member; prefix it with where the faults object sits.
common::Result<Faults> applyFaultsAt(const Faults& base, const Json& patch,
                                     const std::string& field) {
  auto faults = applyFaultsJson(base, patch);
  if (!faults) {
    common::Error error = std::move(faults).error();
    std::string member = error.field == "faults" ? "" : "." + error.field;
    error.message = field + ": " + error.message;
    return std::move(error).withField(field + member);
  }
  return faults;
}

common::Result<void> checkMembers(const Json& object, const std::string& field,
                                  std::initializer_list<const char*> known) {
  for (const auto& [name, value] : object.items()) {
    bool found = false;
    for (const char* k : known) found = found || name == k;
    if (!found) {
      std::string where = field.empty() ? name : field + "." + name;
      return common::invalidArgument("invalid_fleet", "unknown member " + where, where);
    }
  }
  return common::success();
}

bool validRackName(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

common::Result<void> parseCredentials(const Json& json, BmcCredentials& out) {
  if (!json.is_object()) return bad("credentials", "an object");
  PROV_TRY(checkMembers(json, "credentials", {"username", "password"}));
  if (auto it = json.find("username"); it != json.end()) {
    if (!it->is_string() || it->get<std::string>().empty()) {
      return bad("credentials.username", "a non-empty string");
    }
    out.username = it->get<std::string>();
  }
  if (auto it = json.find("password"); it != json.end()) {
    if (!it->is_string()) return bad("credentials.password", "a string");
    out.password = it->get<std::string>();
  }
  return common::success();
}

common::Result<void> parseNodeFaults(const Json& json, const std::string& field, RackSpec& rack) {
  if (!json.is_object()) return bad(field, "an object keyed by node number");
  for (const auto& [key, patch] : json.items()) {
    int node = 0;
    std::istringstream in(key);
    if (!(in >> node) || !in.eof() || node < 1 || node > rack.nodes) {
      return bad(field + "." + key,
                 "keyed by a node number from 1 to " + std::to_string(rack.nodes));
    }
    PROV_ASSIGN(rack.nodeFaults[node], applyFaultsAt(rack.faults, patch, field + "." + key));
  }
  return common::success();
}

common::Result<RackSpec> parseRack(const Json& json, const std::string& field,
                                   const Faults& fleetFaults) {
  if (!json.is_object()) return bad(field, "an object");
  PROV_TRY(checkMembers(json, field, {"name", "nodes", "profile", "faults", "node_faults"}));
  RackSpec rack;
  auto name = json.find("name");
  if (name == json.end() || !name->is_string() || !validRackName(name->get<std::string>())) {
    return bad(field + ".name", "1 to 32 letters, digits, '-' or '_'");
  }
  rack.name = name->get<std::string>();
  auto nodes = json.find("nodes");
  if (nodes == json.end() || !nodes->is_number_integer() || nodes->get<std::int64_t>() < 1 ||
      nodes->get<std::int64_t>() > 10000) {
    return bad(field + ".nodes", "an integer from 1 to 10000");
  }
  rack.nodes = static_cast<int>(nodes->get<std::int64_t>());
  auto profile = json.find("profile");
  if (profile == json.end() || !profile->is_string() || profile->get<std::string>().empty()) {
    return bad(field + ".profile", "a profile name");
  }
  rack.profile = profile->get<std::string>();
  rack.faults = fleetFaults;
  if (auto it = json.find("faults"); it != json.end()) {
    PROV_ASSIGN(rack.faults, applyFaultsAt(fleetFaults, *it, field + ".faults"));
  }
  if (auto it = json.find("node_faults"); it != json.end()) {
    PROV_TRY(parseNodeFaults(*it, field + ".node_faults", rack));
  }
  return rack;
}

common::Result<void> parseScalars(const Json& json, FleetSpec& spec) {
  if (auto it = json.find("seed"); it != json.end()) {
    const bool nonNegative =
        it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() >= 0);
    if (!nonNegative) return bad("seed", "a non-negative integer");
    spec.seed = it->get<std::uint64_t>();
  }
  if (auto it = json.find("time_scale"); it != json.end()) {
    if (!it->is_number() || it->get<double>() <= 0) return bad("time_scale", "a number > 0");
    spec.timeScale = it->get<double>();
  }
  if (auto it = json.find("tls"); it != json.end()) {
    if (!it->is_boolean()) return bad("tls", "a boolean");
    spec.tls = it->get<bool>();
  }
  if (auto it = json.find("address_base"); it != json.end()) {
    if (!it->is_string() || !loopbackAddresses(it->get<std::string>(), 1)) {
      return bad("address_base", "an IPv4 address in 127.0.0.0/8");
    }
    spec.addressBase = it->get<std::string>();
  }
  if (auto it = json.find("port"); it != json.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
        it->get<std::int64_t>() > 65535) {
      return bad("port", "an integer from 0 to 65535");
    }
    spec.port = static_cast<std::uint16_t>(it->get<std::int64_t>());
  }
  return common::success();
}

bool isHttpUrl(const std::string& url) {
  return (url.rfind("http://", 0) == 0 && url.size() > 7) ||
         (url.rfind("https://", 0) == 0 && url.size() > 8);
}

common::Result<void> parseHealthClock(const Json& json, BootSettings& boot) {
  if (!json.is_object()) return bad("boot.health_clock", "an object");
  PROV_TRY(checkMembers(json, "boot.health_clock", {"epoch", "scale"}));
  auto epoch = json.find("epoch");
  if (epoch == json.end() || !epoch->is_number_integer() || epoch->get<std::int64_t>() < 0) {
    return bad("boot.health_clock.epoch", "Unix seconds (a non-negative integer)");
  }
  auto scale = json.find("scale");
  if (scale == json.end() || !scale->is_number() || !(scale->get<double>() >= 1) ||
      scale->get<double>() > 100000) {
    return bad("boot.health_clock.scale", "a number from 1 to 100000");
  }
  boot.healthClockEpoch = epoch->get<std::int64_t>();
  boot.healthClockScale = scale->get<double>();
  return common::success();
}

common::Result<void> parseBoot(const Json& json, BootSettings& boot) {
  if (!json.is_object()) return bad("boot", "an object");
  PROV_TRY(checkMembers(json, "boot",
                        {"service_url", "ca_file", "max_script_retries", "host_state_dir",
                         "monitor_interval_seconds", "health_clock"}));
  if (auto it = json.find("service_url"); it != json.end()) {
    if (!it->is_string() ||
        (!it->get<std::string>().empty() && !isHttpUrl(it->get<std::string>()))) {
      return bad("boot.service_url", "an http:// or https:// URL (or empty: no network boot)");
    }
    boot.serviceUrl = it->get<std::string>();
    while (!boot.serviceUrl.empty() && boot.serviceUrl.back() == '/') boot.serviceUrl.pop_back();
  }
  if (auto it = json.find("ca_file"); it != json.end()) {
    if (!it->is_string()) return bad("boot.ca_file", "a path (string)");
    boot.caFile = it->get<std::string>();
  }
  if (auto it = json.find("max_script_retries"); it != json.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
        it->get<std::int64_t>() > 100000) {
      return bad("boot.max_script_retries", "an integer from 0 to 100000");
    }
    boot.maxScriptRetries = static_cast<int>(it->get<std::int64_t>());
  }
  if (auto it = json.find("host_state_dir"); it != json.end()) {
    if (!it->is_string()) return bad("boot.host_state_dir", "a folder (string)");
    boot.hostStateDir = it->get<std::string>();
  }
  if (auto it = json.find("monitor_interval_seconds"); it != json.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 || it->get<std::int64_t>() > 3600) {
      return bad("boot.monitor_interval_seconds", "an integer from 1 to 3600");
    }
    boot.monitorIntervalSeconds = static_cast<int>(it->get<std::int64_t>());
  }
  if (auto it = json.find("health_clock"); it != json.end()) PROV_TRY(parseHealthClock(*it, boot));
  return common::success();
}

}  // namespace

common::Result<FleetSpec> parseFleetSpec(const nlohmann::json& json) {
  if (!json.is_object()) return bad("fleet", "a JSON object");
  PROV_TRY(checkMembers(json, "",
                        {"seed", "time_scale", "tls", "address_base", "port", "credentials",
                         "faults", "boot", "racks"}));
  FleetSpec spec;
  PROV_TRY(parseScalars(json, spec));
  if (auto it = json.find("credentials"); it != json.end()) {
    PROV_TRY(parseCredentials(*it, spec.credentials));
  }
  if (auto it = json.find("faults"); it != json.end()) {
    PROV_ASSIGN(spec.faults, applyFaultsAt({}, *it, "faults"));
  }
  if (auto it = json.find("boot"); it != json.end()) PROV_TRY(parseBoot(*it, spec.boot));
  auto racks = json.find("racks");
  if (racks == json.end() || !racks->is_array() || racks->empty()) {
    return bad("racks", "a non-empty array");
  }
  for (std::size_t i = 0; i < racks->size(); ++i) {
    std::string field = "racks[" + std::to_string(i) + "]";
    PROV_ASSIGN(RackSpec rack, parseRack((*racks)[i], field, spec.faults));
    for (const RackSpec& other : spec.racks) {
      if (other.name == rack.name)
        return bad(field + ".name", "unique ('" + rack.name + "' twice)");
    }
    spec.racks.push_back(std::move(rack));
  }
  return spec;
}

common::Result<BootSettings> parseBootSettings(const nlohmann::json& json) {
  BootSettings boot;
  PROV_TRY(parseBoot(json, boot));
  return boot;
}

common::Result<FleetSpec> loadFleetSpecFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return common::invalidArgument("fleet_file", "cannot read the fleet file " + path);
  Json json = Json::parse(in, nullptr, false);
  if (json.is_discarded()) {
    return common::invalidArgument("malformed_json", "the fleet file is not valid JSON: " + path);
  }
  return parseFleetSpec(json);
}

void overrideLatency(FleetSpec& spec, double medianMs) {
  spec.faults.latency.medianMs = medianMs;
  for (RackSpec& rack : spec.racks) {
    rack.faults.latency.medianMs = medianMs;
    for (auto& [node, faults] : rack.nodeFaults) faults.latency.medianMs = medianMs;
  }
}

}  // namespace sim
