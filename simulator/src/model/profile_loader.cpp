// Loading profiles: the shipped minified files, or a recorded dump directory.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/data_paths.hpp"
#include "model/json_util.hpp"
#include "model/vendor_behaviour.hpp"
#include "simulator/bmc_model.hpp"
#include "simulator/profile.hpp"

#ifndef BMC_SIM_PROFILES_FROM_BIN
#define BMC_SIM_PROFILES_FROM_BIN "../share/provisioner/simulator/profiles"
#define BMC_SIM_BUILD_DIR ""
#define BMC_SIM_SOURCE_PROFILES_DIR ""
#endif

namespace sim {
namespace fs = std::filesystem;

std::string Profile::canonicalPath(std::string_view path) const {
  auto trimmed = model::trimSlash(std::string(path));
  if (find(trimmed)) return trimmed;
  if (!foldCase_) return {};
  auto it = lowerIndex_.find(model::lower(trimmed));
  return it == lowerIndex_.end() ? std::string{} : it->second;
}

const nlohmann::json* Profile::find(std::string_view canonical) const {
  if (!resources || canonical.empty()) return nullptr;
  auto it = resources->find(canonical);
  return it == resources->end() ? nullptr : &*it;
}

std::shared_ptr<const Profile> ProfileBuilder::build(std::string name, std::string source,
                                                     nlohmann::json resources) {
  auto profile = std::make_shared<Profile>();
  profile->name = std::move(name);
  profile->source = std::move(source);
  for (const auto& [path, body] : resources.items()) {
    profile->lowerIndex_.emplace(model::lower(path), path);
  }
  profile->resources = std::make_shared<const nlohmann::json>(std::move(resources));
  profile->behaviour = model::deriveBehaviour(*profile);
  profile->foldCase_ = profile->behaviour.caseInsensitivePaths;
  return profile;
}

namespace {

common::Result<nlohmann::json> readJsonFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return common::notFound("profile_not_found", "cannot open " + file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto parsed = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (parsed.is_discarded()) {
    return common::invalidArgument("malformed_profile", "not JSON: " + file.string());
  }
  return parsed;
}

}  // namespace

std::vector<std::string> profileNames() {
  return {"dell-r750", "hpe-dl385", "lenovo-sr670v2", "supermicro-hgx-h100", "dgx-h100"};
}

namespace {

common::Result<std::shared_ptr<const Profile>> loadProfileFile(const fs::path& file,
                                                               const std::string& name) {
  PROV_ASSIGN(auto document, readJsonFile(file));
  const auto* resources = model::member(document, "resources");
  if (!resources || !resources->is_object() || !model::member(*resources, "/redfish/v1")) {
    return common::invalidArgument("malformed_profile", "profile without resources: " + name);
  }
  return ProfileBuilder::build(name, model::stringAt(document, "source"), *resources);
}

}  // namespace

common::Result<std::shared_ptr<const Profile>> loadProfile(const std::string& name,
                                                           const std::string& profilesDir) {
  if (!model::contains(profileNames(), name)) {
    return common::notFound("unknown_profile", "no simulator profile named " + name);
  }
  fs::path dir =
      profilesDir.empty()
          ? fs::path(common::resolveDataPath(
                {BMC_SIM_PROFILES_FROM_BIN, BMC_SIM_SOURCE_PROFILES_DIR, BMC_SIM_BUILD_DIR}))
          : fs::path(profilesDir);
  return loadProfileFile(dir / (name + ".json"), name);
}

common::Result<std::shared_ptr<const Profile>> loadDumpProfile(const std::string& dumpDir) {
  std::error_code ec;
  fs::path root(dumpDir);
  // A shipped profile file holds the same recorded resources as its dump directory.
  if (fs::is_regular_file(root, ec)) return loadProfileFile(root, root.stem().string());
  if (!fs::is_directory(root / "redfish" / "v1", ec)) {
    return common::notFound("dump_not_found", "no redfish/v1 under " + dumpDir);
  }
  nlohmann::json resources = nlohmann::json::object();
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() != "index.json") continue;
    auto relative = fs::relative(it->path().parent_path(), root, ec).generic_string();
    auto body = readJsonFile(it->path());
    if (body.ok()) resources["/" + relative] = std::move(body).value();
  }
  if (!resources.contains("/redfish/v1")) {
    return common::invalidArgument("malformed_dump", "no service root in " + dumpDir);
  }
  auto name = "dump:" + root.filename().string();
  return ProfileBuilder::build(name, dumpDir, std::move(resources));
}

}  // namespace sim
