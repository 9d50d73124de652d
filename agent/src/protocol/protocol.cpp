// Facts and Progress on the wire, and the small protocol vocabulary (test names, task kinds).
// Plans and tasks are in protocol_plan.cpp, results in protocol_result.cpp.
#include "agent/protocol.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "common/mac_address.hpp"
#include "protocol/json_fields.hpp"

namespace agent {

using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;

namespace {

constexpr std::size_t kMaxGpus = 64;
constexpr std::size_t kMaxNics = 64;
constexpr const char* kInvalidFacts = "invalid_facts";

nlohmann::json toJson(const PcieLink& link) {
  return {{"current_width", link.current_width},
          {"max_width", link.max_width},
          {"current_gen", link.current_gen},
          {"max_gen", link.max_gen}};
}

nlohmann::json toJson(const GpuFacts& gpu) {
  return {{"index", gpu.index},
          {"uuid", gpu.uuid},
          {"serial", gpu.serial},
          {"model", gpu.model},
          {"memory_mib", gpu.memory_mib},
          {"pcie", toJson(gpu.pcie)},
          {"driver_version", gpu.driver_version},
          {"ecc_enabled", gpu.ecc_enabled}};
}

Result<PcieLink> parsePcieLink(const ObjectReader& parent) {
  PcieLink link;
  const nlohmann::json* value = parent.find("pcie");
  if (value == nullptr) return link;  // not every backend can read the link
  ObjectReader reader(*value, parent.pathOf("pcie"), parent.code());
  PROV_TRY(reader.requireObject());
  PROV_TRY(reader.readInt("current_width", link.current_width, 0, 32, Need::kOptional));
  PROV_TRY(reader.readInt("max_width", link.max_width, 0, 32, Need::kOptional));
  PROV_TRY(reader.readInt("current_gen", link.current_gen, 0, 16, Need::kOptional));
  PROV_TRY(reader.readInt("max_gen", link.max_gen, 0, 16, Need::kOptional));
  return link;
}

Result<GpuFacts> parseGpuFacts(const nlohmann::json& value, std::string path) {
  ObjectReader reader(value, std::move(path), kInvalidFacts);
  PROV_TRY(reader.requireObject());
  GpuFacts gpu;
  PROV_TRY(reader.readInt("index", gpu.index, 0, static_cast<int>(kMaxGpus) - 1, Need::kRequired));
  PROV_TRY(reader.readString("uuid", gpu.uuid, Need::kRequired, /*allow_empty=*/false));
  PROV_TRY(reader.readString("serial", gpu.serial, Need::kRequired));
  PROV_TRY(reader.readString("model", gpu.model, Need::kRequired, /*allow_empty=*/false));
  PROV_TRY(reader.readUnsigned("memory_mib", gpu.memory_mib, Need::kOptional, 1ULL << 32));
  PROV_ASSIGN(gpu.pcie, parsePcieLink(reader));
  PROV_TRY(reader.readString("driver_version", gpu.driver_version, Need::kOptional));
  PROV_TRY(reader.readBool("ecc_enabled", gpu.ecc_enabled, Need::kOptional));
  return gpu;
}

Result<NicFacts> parseNicFacts(const nlohmann::json& value, std::string path) {
  ObjectReader reader(value, std::move(path), kInvalidFacts);
  PROV_TRY(reader.requireObject());
  NicFacts nic;
  PROV_TRY(reader.readString("name", nic.name, Need::kRequired, /*allow_empty=*/false));
  std::string mac;
  PROV_TRY(reader.readString("mac", mac, Need::kRequired, /*allow_empty=*/false));
  auto normalized = common::normalizeMac(mac);
  if (!normalized) return reader.error("mac", "is not a MAC address");
  nic.mac = std::move(normalized).value();
  return nic;
}

Result<std::vector<GpuFacts>> parseGpuList(const ObjectReader& reader) {
  PROV_ASSIGN(const nlohmann::json* array, reader.readArray("gpus", kMaxGpus, Need::kOptional));
  std::vector<GpuFacts> gpus;
  if (array == nullptr) return gpus;
  std::set<int> indexes;
  for (std::size_t i = 0; i < array->size(); ++i) {
    PROV_ASSIGN(auto gpu, parseGpuFacts((*array)[i], reader.pathOf("gpus", i)));
    if (!indexes.insert(gpu.index).second) {
      std::string field = reader.pathOf("gpus", i) + ".index";
      return common::invalidArgument(kInvalidFacts, field + ": duplicate GPU index", field);
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

Result<std::vector<NicFacts>> parseNicList(const ObjectReader& reader) {
  PROV_ASSIGN(const nlohmann::json* array, reader.readArray("nics", kMaxNics, Need::kOptional));
  std::vector<NicFacts> nics;
  if (array == nullptr) return nics;
  for (std::size_t i = 0; i < array->size(); ++i) {
    PROV_ASSIGN(auto nic, parseNicFacts((*array)[i], reader.pathOf("nics", i)));
    nics.push_back(std::move(nic));
  }
  return nics;
}

}  // namespace

bool isKnownTest(std::string_view name) {
  return name == kTestCompute || name == kTestHbmBandwidth || name == kTestPcieH2D ||
         name == kTestPcieD2H || name == kTestPeerBandwidth;
}

std::string_view toString(TaskKind kind) {
  switch (kind) {
    case TaskKind::kNone:
      return "none";
    case TaskKind::kBurnIn:
      return "burn_in";
    case TaskKind::kWipe:
      return "wipe";
  }
  return "none";
}

nlohmann::json toJson(const Facts& facts) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& gpu : facts.gpus) gpus.push_back(toJson(gpu));
  nlohmann::json nics = nlohmann::json::array();
  for (const auto& nic : facts.nics) nics.push_back({{"name", nic.name}, {"mac", nic.mac}});
  return {{"host_serial", facts.host_serial},
          {"agent_version", facts.agent_version},
          {"backend", facts.backend},
          {"gpus", std::move(gpus)},
          {"nics", std::move(nics)}};
}

Result<Facts> parseFacts(const nlohmann::json& object) {
  ObjectReader reader(object, "", kInvalidFacts);
  PROV_TRY(reader.requireObject());
  Facts facts;
  PROV_TRY(reader.readString("host_serial", facts.host_serial, Need::kRequired));
  PROV_TRY(reader.readString("agent_version", facts.agent_version, Need::kRequired));
  PROV_TRY(reader.readString("backend", facts.backend, Need::kRequired, /*allow_empty=*/false));
  PROV_ASSIGN(facts.gpus, parseGpuList(reader));
  PROV_ASSIGN(facts.nics, parseNicList(reader));
  return facts;
}

nlohmann::json toJson(const Progress& progress) {
  return {{"test", progress.test},
          {"gpu_index", progress.gpu_index},
          {"percent", progress.percent},
          {"message", progress.message}};
}

Result<Progress> parseProgress(const nlohmann::json& object) {
  ObjectReader reader(object, "", "invalid_progress");
  PROV_TRY(reader.requireObject());
  Progress progress;
  PROV_TRY(reader.readString("test", progress.test, Need::kOptional));
  if (!progress.test.empty() && !isKnownTest(progress.test)) {
    return reader.error("test", "unknown test '" + progress.test + "'");
  }
  PROV_TRY(reader.readInt("gpu_index", progress.gpu_index, -1, static_cast<int>(kMaxGpus) - 1,
                          Need::kOptional));
  PROV_TRY(reader.readDouble("percent", progress.percent, 0, 100, Need::kRequired));
  PROV_TRY(reader.readString("message", progress.message, Need::kOptional));
  return progress;
}

}  // namespace agent
