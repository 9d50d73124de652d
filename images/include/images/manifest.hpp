// An image manifest: name, version and the digests of its artifacts. This is what gets signed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"

namespace images {

enum class ArtifactKind { kKernel, kInitrd, kRootfs };

std::string_view toString(ArtifactKind kind);  // "kernel", "initrd", "rootfs"
std::optional<ArtifactKind> parseArtifactKind(std::string_view text);

struct Artifact {
  ArtifactKind kind = ArtifactKind::kKernel;
  std::string sha256;  // 64 lower-case hex digits
  std::uint64_t size = 0;
  std::string file_name;  // informative ("vmlinuz"); the store addresses artifacts by digest
};

struct Manifest {
  std::string name;     // [a-z0-9][a-z0-9._-]{0,63}
  std::string version;  // [A-Za-z0-9][A-Za-z0-9._+-]{0,63}
  std::string description;
  // Extra kernel arguments for this image ("console=ttyS0,115200 quiet"): printable ASCII without
  // quotes, '$' or control characters, at most 1024 bytes.
  std::string kernel_args;
  // Exactly one kernel and one initrd; at most one rootfs. Kept sorted by kind.
  std::vector<Artifact> artifacts;
};

// Reads a manifest object; errors are InvalidArgument "invalid_manifest" with the field path
// ("artifacts[1].sha256"). Unknown keys are ignored (and therefore not signed).
common::Result<Manifest> parseManifest(const nlohmann::json& object);
nlohmann::json toJson(const Manifest& manifest);
// The bytes that are signed: toJson(manifest) serialised compactly with sorted keys.
std::string canonicalBytes(const Manifest& manifest);
// nullptr when the manifest has no artifact of that kind.
const Artifact* findArtifact(const Manifest& manifest, ArtifactKind kind);

}  // namespace images
