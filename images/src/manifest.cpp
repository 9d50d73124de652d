#include "images/manifest.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "images/artifact_store.hpp"
#include "text_rules.hpp"

namespace images {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxDescription = 4096;
constexpr std::size_t kMaxKernelArgs = 1024;
constexpr std::size_t kMaxFileName = 255;
constexpr std::size_t kMaxArtifacts = 3;

common::Error invalid(const std::string& field, const std::string& why) {
  return common::invalidArgument("invalid_manifest", "manifest field " + field + " " + why, field);
}

bool isLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool isAlnum(char c) {
  return isLowerAlnum(c) || (c >= 'A' && c <= 'Z');
}

// [a-z0-9][a-z0-9._-]{0,63}
bool isValidName(std::string_view s) {
  if (s.empty() || s.size() > 64 || !isLowerAlnum(s[0])) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isLowerAlnum(c) || c == '.' || c == '_' || c == '-'; });
}

// [A-Za-z0-9][A-Za-z0-9._+-]{0,63}
bool isValidVersion(std::string_view s) {
  if (s.empty() || s.size() > 64 || !isAlnum(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return isAlnum(c) || c == '.' || c == '_' || c == '+' || c == '-';
  });
}

// A plain file name (the CLI joins it to a directory): no separators, no leading dot.
bool isValidFileName(std::string_view s) {
  if (s.empty() || s.size() > kMaxFileName || s[0] == '.') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return isAlnum(c) || c == '.' || c == '_' || c == '+' || c == '-';
  });
}

common::Result<std::string> requiredString(const json& object, const char* key,
                                           const std::string& field) {
  auto it = object.find(key);
  if (it == object.end()) return invalid(field, "is required");
  const auto* text = it->get_ptr<const std::string*>();
  if (text == nullptr) return invalid(field, "must be a string");
  return *text;
}

common::Result<std::string> optionalString(const json& object, const char* key,
                                           const std::string& field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string{};
  const auto* text = it->get_ptr<const std::string*>();
  if (text == nullptr) return invalid(field, "must be a string");
  return *text;
}

common::Result<std::uint64_t> positiveSize(const json& object, const std::string& field) {
  auto it = object.find("size");
  if (it == object.end()) return invalid(field, "is required");
  if (const auto* u = it->get_ptr<const json::number_unsigned_t*>(); u != nullptr && *u > 0) {
    return static_cast<std::uint64_t>(*u);
  }
  if (const auto* i = it->get_ptr<const json::number_integer_t*>(); i != nullptr && *i > 0) {
    return static_cast<std::uint64_t>(*i);
  }
  return invalid(field, "must be a positive integer (bytes)");
}

common::Result<Artifact> parseArtifact(const json& object, const std::string& prefix) {
  if (!object.is_object()) return invalid(prefix, "must be an object");
  Artifact artifact;
  PROV_ASSIGN(auto kind_text, requiredString(object, "kind", prefix + ".kind"));
  auto kind = parseArtifactKind(kind_text);
  if (!kind) return invalid(prefix + ".kind", "must be kernel, initrd or rootfs");
  artifact.kind = *kind;
  PROV_ASSIGN(artifact.sha256, requiredString(object, "sha256", prefix + ".sha256"));
  if (!isSha256Hex(artifact.sha256)) {
    return invalid(prefix + ".sha256", "must be 64 lower-case hex digits");
  }
  PROV_ASSIGN(artifact.size, positiveSize(object, prefix + ".size"));
  PROV_ASSIGN(artifact.file_name, optionalString(object, "file_name", prefix + ".file_name"));
  if (!artifact.file_name.empty() && !isValidFileName(artifact.file_name)) {
    return invalid(prefix + ".file_name",
                   "must be a plain file name ([A-Za-z0-9._+-], no leading dot, at most 255)");
  }
  return artifact;
}

common::Result<void> checkKinds(const std::vector<Artifact>& artifacts) {
  std::array<int, 3> counts{};
  for (const auto& a : artifacts) ++counts[static_cast<std::size_t>(a.kind)];
  if (counts[0] != 1) return invalid("artifacts", "must hold exactly one kernel");
  if (counts[1] != 1) return invalid("artifacts", "must hold exactly one initrd");
  if (counts[2] > 1) return invalid("artifacts", "may hold at most one rootfs");
  return common::success();
}

common::Result<std::vector<Artifact>> parseArtifacts(const json& object) {
  auto it = object.find("artifacts");
  if (it == object.end()) return invalid("artifacts", "is required");
  if (!it->is_array()) return invalid("artifacts", "must be an array");
  if (it->size() > kMaxArtifacts) return invalid("artifacts", "holds more than three artifacts");
  std::vector<Artifact> artifacts;
  for (std::size_t i = 0; i < it->size(); ++i) {
    PROV_ASSIGN(auto artifact, parseArtifact((*it)[i], "artifacts[" + std::to_string(i) + "]"));
    artifacts.push_back(std::move(artifact));
  }
  PROV_TRY(checkKinds(artifacts));
  std::stable_sort(artifacts.begin(), artifacts.end(),
                   [](const Artifact& a, const Artifact& b) { return a.kind < b.kind; });
  return artifacts;
}

}  // namespace

std::string_view toString(ArtifactKind kind) {
  switch (kind) {
    case ArtifactKind::kKernel:
      return "kernel";
    case ArtifactKind::kInitrd:
      return "initrd";
    case ArtifactKind::kRootfs:
      return "rootfs";
  }
  return "unknown";
}

std::optional<ArtifactKind> parseArtifactKind(std::string_view text) {
  if (text == "kernel") return ArtifactKind::kKernel;
  if (text == "initrd") return ArtifactKind::kInitrd;
  if (text == "rootfs") return ArtifactKind::kRootfs;
  return std::nullopt;
}

common::Result<Manifest> parseManifest(const nlohmann::json& object) {
  if (!object.is_object()) return invalid("manifest", "must be a JSON object");
  Manifest manifest;
  PROV_ASSIGN(manifest.name, requiredString(object, "name", "name"));
  if (!isValidName(manifest.name)) {
    return invalid("name", "must match [a-z0-9][a-z0-9._-]{0,63}");
  }
  PROV_ASSIGN(manifest.version, requiredString(object, "version", "version"));
  if (!isValidVersion(manifest.version)) {
    return invalid("version", "must match [A-Za-z0-9][A-Za-z0-9._+-]{0,63}");
  }
  PROV_ASSIGN(manifest.description, optionalString(object, "description", "description"));
  if (manifest.description.size() > kMaxDescription) {
    return invalid("description", "is longer than 4096 bytes");
  }
  PROV_ASSIGN(manifest.kernel_args, optionalString(object, "kernel_args", "kernel_args"));
  if (manifest.kernel_args.size() > kMaxKernelArgs || !detail::isBootText(manifest.kernel_args)) {
    return invalid("kernel_args",
                   "must be printable ASCII without quotes, '$', '#', '\\' or control characters "
                   "(at most 1024 bytes)");
  }
  PROV_ASSIGN(manifest.artifacts, parseArtifacts(object));
  return manifest;
}

nlohmann::json toJson(const Manifest& manifest) {
  json artifacts = json::array();
  for (const auto& a : manifest.artifacts) {
    artifacts.push_back({{"kind", std::string(toString(a.kind))},
                         {"sha256", a.sha256},
                         {"size", a.size},
                         {"file_name", a.file_name}});
  }
  return {{"name", manifest.name},
          {"version", manifest.version},
          {"description", manifest.description},
          {"kernel_args", manifest.kernel_args},
          {"artifacts", std::move(artifacts)}};
}

std::string canonicalBytes(const Manifest& manifest) {
  // nlohmann's object is a std::map, so dump() already writes keys sorted; compact, ASCII-escaped
  // so the bytes do not depend on how a reader re-encodes non-ASCII text. Invalid UTF-8 (only
  // possible in a manifest built in code) is replaced rather than thrown.
  return toJson(manifest).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

const Artifact* findArtifact(const Manifest& manifest, ArtifactKind kind) {
  for (const auto& a : manifest.artifacts) {
    if (a.kind == kind) return &a;
  }
  return nullptr;
}

}  // namespace images
