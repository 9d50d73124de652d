#include "image_local_commands.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "images/artifact_store.hpp"
#include "images/manifest.hpp"
#include "images/signing.hpp"

namespace provisioner::service {
namespace {

namespace fs = std::filesystem;
using Flags = std::map<std::string, std::vector<std::string>>;

constexpr const char* kUsage =
    "usage: provisioner image keygen --out PREFIX\n"
    "       provisioner image manifest --name N --version V --kernel FILE --initrd FILE\n"
    "                [--rootfs FILE] [--kernel-args ARGS] [--description TEXT] [--out FILE]\n"
    "       provisioner image sign --key KEY --manifest FILE [--out FILE]\n"
    "       provisioner image verify --signed FILE --trusted-key PUB [--trusted-key PUB...]\n"
    "                [--artifacts-dir DIR]\n";
constexpr std::size_t kMaxDocument = 1 << 20;

int usage(std::ostream& err, const std::string& problem) {
  err << "error: " << problem << "\n" << kUsage;
  return 2;
}

int failure(std::ostream& err, const common::Error& error) {
  err << error.code << ": " << error.message << "\n";
  return 1;
}

// Reads "--flag value" pairs; only `repeatable` flags may appear more than once.
std::string parseFlags(const std::vector<std::string>& args, const std::set<std::string>& allowed,
                       const std::set<std::string>& repeatable, Flags& flags) {
  for (std::size_t i = 1; i < args.size(); i += 2) {
    const std::string& flag = args[i];
    if (allowed.count(flag) == 0) return "unknown flag " + flag + " for " + args[0];
    if (i + 1 >= args.size()) return "flag " + flag + " needs a value";
    if (flags.count(flag) != 0 && repeatable.count(flag) == 0) return "flag " + flag + " repeated";
    flags[flag].push_back(args[i + 1]);
  }
  return {};
}

std::string missingFlag(const Flags& flags, const std::vector<std::string>& required) {
  for (const auto& flag : required) {
    if (flags.count(flag) == 0) return flag + " is required";
  }
  return {};
}

std::string single(const Flags& flags, const std::string& flag) {
  auto it = flags.find(flag);
  return it == flags.end() ? std::string{} : it->second.front();
}

common::Error fileError(const std::string& code, const std::string& message) {
  return common::invalidArgument(code, message);
}

common::Result<std::string> readText(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return fileError("file_unreadable", "cannot read " + file.string() + ": " + ec.message());
  if (size > kMaxDocument) return fileError("file_too_large", file.string() + " is over 1 MiB");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return fileError("file_unreadable", "cannot read " + file.string());
  return text.str();
}

// Creates `file` exclusively with `mode`; never replaces an existing file.
common::Result<void> writeNewFile(const fs::path& file, const std::string& content, mode_t mode) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return fileError("file_exists", "cannot create " + file.string() + " (exists?)");
  const bool written =
      ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(file.c_str());
    return fileError("file_unwritable", "cannot write " + file.string());
  }
  return common::success();
}

// Writes the document to --out (replacing it) or to `out`.
int emit(const nlohmann::json& document, const std::string& out_file, std::ostream& out,
         std::ostream& err) {
  const std::string text = document.dump(2) + "\n";
  if (out_file.empty()) {
    out << text;
    return 0;
  }
  std::ofstream file(out_file, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return failure(err, fileError("file_unwritable", "cannot write " + out_file));
  out << "wrote " << out_file << "\n";
  return 0;
}

int keygen(const Flags& flags, std::ostream& out, std::ostream& err) {
  const std::string prefix = single(flags, "--out");
  const fs::path key_file = prefix + ".key";
  const fs::path pub_file = prefix + ".pub";
  for (const auto& file : {key_file, pub_file}) {
    if (fs::exists(file)) {
      return failure(err, fileError("file_exists", file.string() + " exists; not overwriting"));
    }
  }
  auto pair = images::generateKeyPair();
  if (!pair) return failure(err, pair.error());
  if (auto r = writeNewFile(key_file, pair->private_pem, 0600); !r) return failure(err, r.error());
  if (auto r = writeNewFile(pub_file, pair->public_pem, 0644); !r) {
    fs::remove(key_file);
    return failure(err, r.error());
  }
  out << "key id " << pair->key_id << "\nprivate key " << key_file.string()
      << " (keep it secret)\npublic key " << pub_file.string() << "\n";
  return 0;
}

common::Result<images::Artifact> describeFile(images::ArtifactKind kind, const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return fileError("artifact_unreadable", "cannot read " + file.string());
  PROV_ASSIGN(auto digest, images::sha256OfFile(file));
  return images::Artifact{kind, std::move(digest), size, file.filename().string()};
}

int manifest(const Flags& flags, std::ostream& out, std::ostream& err) {
  images::Manifest m;
  m.name = single(flags, "--name");
  m.version = single(flags, "--version");
  m.kernel_args = single(flags, "--kernel-args");
  m.description = single(flags, "--description");
  std::vector<std::pair<images::ArtifactKind, std::string>> files = {
      {images::ArtifactKind::kKernel, "--kernel"}, {images::ArtifactKind::kInitrd, "--initrd"}};
  if (flags.count("--rootfs") != 0) files.emplace_back(images::ArtifactKind::kRootfs, "--rootfs");
  for (const auto& [kind, flag] : files) {
    auto artifact = describeFile(kind, single(flags, flag));
    if (!artifact) return failure(err, artifact.error());
    m.artifacts.push_back(std::move(artifact).value());
  }
  // The same validation a signed manifest gets when it is registered.
  auto checked = images::parseManifest(images::toJson(m));
  if (!checked) return failure(err, checked.error());
  return emit(images::toJson(*checked), single(flags, "--out"), out, err);
}

// A bare manifest, or the manifest inside a (signed or unsigned) document.
common::Result<images::Manifest> loadManifest(const std::string& file) {
  PROV_ASSIGN(auto text, readText(file));
  auto document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_discarded()) {
    return common::invalidArgument("malformed_json", file + " is not valid JSON");
  }
  if (document.is_object() && document.contains("manifest")) {
    PROV_ASSIGN(auto signed_manifest, images::parseSignedManifest(document));
    return signed_manifest.manifest;
  }
  return images::parseManifest(document);
}

int sign(const Flags& flags, std::ostream& out, std::ostream& err) {
  auto m = loadManifest(single(flags, "--manifest"));
  if (!m) return failure(err, m.error());
  auto key = readText(single(flags, "--key"));
  if (!key) return failure(err, key.error());
  auto signed_manifest = images::signManifest(*m, *key);
  if (!signed_manifest) return failure(err, signed_manifest.error());
  err << "signed with " << signed_manifest->signature->key_id << "\n";
  return emit(images::toJson(*signed_manifest), single(flags, "--out"), out, err);
}

common::Result<void> checkArtifactFile(const images::Artifact& artifact, const fs::path& dir) {
  const std::string kind(images::toString(artifact.kind));
  if (artifact.file_name.empty()) {
    return common::invalidArgument("artifact_missing", "the " + kind + " names no file_name");
  }
  const fs::path file = dir / artifact.file_name;
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return common::invalidArgument("artifact_missing", "cannot read " + file.string());
  if (size != artifact.size) {
    return common::invalidArgument(
        "artifact_size_mismatch", file.string() + " has " + std::to_string(size) +
                                      " bytes, the manifest says " + std::to_string(artifact.size));
  }
  PROV_ASSIGN(auto digest, images::sha256OfFile(file));
  if (digest != artifact.sha256) {
    return common::invalidArgument(
        "artifact_digest_mismatch",
        file.string() + " has SHA-256 " + digest + ", the manifest says " + artifact.sha256);
  }
  return common::success();
}

int verify(const Flags& flags, std::ostream& out, std::ostream& err) {
  auto text = readText(single(flags, "--signed"));
  if (!text) return failure(err, text.error());
  auto signed_manifest = images::parseSignedManifest(*text);
  if (!signed_manifest) return failure(err, signed_manifest.error());
  images::TrustedKeys trusted;
  for (const auto& file : flags.at("--trusted-key")) {
    if (auto r = trusted.addFile(file); !r) return failure(err, r.error());
  }
  if (auto r = images::verifySignature(*signed_manifest, trusted); !r) {
    return failure(err, r.error());
  }
  const auto& m = signed_manifest->manifest;
  out << "signature ok: " << m.name << " " << m.version << " signed by "
      << signed_manifest->signature->key_id << "\n";
  if (flags.count("--artifacts-dir") == 0) return 0;
  for (const auto& artifact : m.artifacts) {
    if (auto r = checkArtifactFile(artifact, single(flags, "--artifacts-dir")); !r) {
      return failure(err, r.error());
    }
    out << "artifact ok: " << images::toString(artifact.kind) << " " << artifact.file_name << "\n";
  }
  return 0;
}

struct Command {
  std::set<std::string> allowed;
  std::vector<std::string> required;
  std::set<std::string> repeatable;
  int (*run)(const Flags&, std::ostream&, std::ostream&);
};

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> kCommands = {
      {"keygen", {{"--out"}, {"--out"}, {}, keygen}},
      {"manifest",
       {{"--name", "--version", "--kernel", "--initrd", "--rootfs", "--kernel-args",
         "--description", "--out"},
        {"--name", "--version", "--kernel", "--initrd"},
        {},
        manifest}},
      {"sign", {{"--key", "--manifest", "--out"}, {"--key", "--manifest"}, {}, sign}},
      {"verify",
       {{"--signed", "--trusted-key", "--artifacts-dir"},
        {"--signed", "--trusted-key"},
        {"--trusted-key"},
        verify}},
  };
  return kCommands;
}

}  // namespace

int runImageLocalCommand(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err) {
  if (args.empty()) return -1;
  auto it = commands().find(args[0]);
  if (it == commands().end()) return -1;
  const Command& command = it->second;
  Flags flags;
  if (auto problem = parseFlags(args, command.allowed, command.repeatable, flags);
      !problem.empty()) {
    return usage(err, problem);
  }
  if (auto problem = missingFlag(flags, command.required); !problem.empty()) {
    return usage(err, problem);
  }
  return command.run(flags, out, err);
}

}  // namespace provisioner::service
