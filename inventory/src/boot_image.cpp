// The image an agent task names (boot_image.hpp).
#include "inventory/boot_image.hpp"

#include <nlohmann/json.hpp>

namespace inventory {

std::string withBootImage(const std::string& spec_json, const ImageRef& image) {
  auto spec = nlohmann::json::parse(spec_json, nullptr, false);
  if (!spec.is_object()) spec = nlohmann::json::object();
  spec["boot_image"] = {{"name", image.name}, {"version", image.version}};
  return spec.dump();
}

std::optional<ImageRef> bootImageOf(const AgentTask& task) {
  const auto spec = nlohmann::json::parse(task.spec_json, nullptr, false);
  if (!spec.is_object()) return std::nullopt;
  const auto named = spec.find("boot_image");
  if (named == spec.end() || !named->is_object()) return std::nullopt;
  const auto name = named->find("name");
  const auto version = named->find("version");
  if (name == named->end() || version == named->end() || !name->is_string() ||
      !version->is_string()) {
    return std::nullopt;
  }
  ImageRef ref{name->get<std::string>(), version->get<std::string>()};
  if (ref.name.empty() || ref.version.empty()) return std::nullopt;
  return ref;
}

}  // namespace inventory
