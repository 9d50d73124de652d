#include "images/ipxe.hpp"

#include <algorithm>
#include <sstream>

#include "images/artifact_store.hpp"
#include "text_rules.hpp"

namespace images {
namespace {

constexpr int kMaxRetrySeconds = 3600;
constexpr std::size_t kMaxLabel = 200;

common::Error unsafe(const std::string& field, const std::string& why) {
  return common::invalidArgument("unsafe_boot_parameter", "boot parameter " + field + " " + why,
                                 field);
}

bool isHttpUrl(std::string_view url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

common::Result<void> checkUrl(std::string_view url, const std::string& field) {
  if (!isHttpUrl(url)) return unsafe(field, "must be an http:// or https:// URL");
  if (!detail::isBootToken(url)) {
    return unsafe(field, "holds whitespace, quotes, '$', '#', '\\' or control characters");
  }
  return common::success();
}

bool isParamKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

common::Result<void> checkParams(const std::vector<std::pair<std::string, std::string>>& params) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& [key, value] = params[i];
    const std::string field = "kernel_params[" + std::to_string(i) + "]";
    if (key.empty() || !std::all_of(key.begin(), key.end(), isParamKeyChar)) {
      return unsafe(field + ".key", "must be a non-empty [A-Za-z0-9._-] name");
    }
    if (!detail::isBootToken(value)) {
      return unsafe(field + ".value",
                    "holds whitespace, quotes, '$', '#', '\\' or control characters");
    }
  }
  return common::success();
}

common::Result<void> checkSpec(const BootScriptSpec& spec) {
  if (spec.label.size() > kMaxLabel || !detail::isBootText(spec.label)) {
    return unsafe("label", "must be printable text without quotes, '$', '#' or '\\'");
  }
  PROV_TRY(checkUrl(spec.kernel_url, "kernel_url"));
  PROV_TRY(checkUrl(spec.initrd_url, "initrd_url"));
  if (!isSha256Hex(spec.kernel_sha256)) return unsafe("kernel_sha256", "must be 64 hex digits");
  if (!isSha256Hex(spec.initrd_sha256)) return unsafe("initrd_sha256", "must be 64 hex digits");
  if (!detail::isBootText(spec.image_kernel_args)) {
    return unsafe("image_kernel_args", "holds quotes, '$', '#', '\\' or control characters");
  }
  if (spec.retry_seconds < 1 || spec.retry_seconds > kMaxRetrySeconds) {
    return unsafe("retry_seconds", "must be between 1 and 3600");
  }
  return checkParams(spec.kernel_params);
}

// The kernel line's arguments: the image's own, then the per-boot parameters, single-spaced.
std::string kernelArguments(const BootScriptSpec& spec) {
  std::string args;
  std::istringstream words(spec.image_kernel_args);
  for (std::string word; words >> word;) args.append(" ").append(word);
  for (const auto& [key, value] : spec.kernel_params) {
    args.append(" ").append(key).append("=").append(value);
  }
  return args;
}

// Text from the caller that cannot be refused (no Result): anything iPXE would interpret
// becomes '_', so a reason can never inject script.
std::string sanitizedText(std::string_view text) {
  std::string out(text.substr(0, kMaxLabel));
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c != ' ' && !detail::isBootTokenChar(c); }, '_');
  return out;
}

// A URL that cannot be refused: unsafe bytes are percent-encoded, which keeps it a valid URL.
// The one iPXE setting a retry URL may carry: the booting NIC's MAC, filled in by iPXE.
constexpr std::string_view kMacSetting = "${net0/mac}";

std::string sanitizedUrl(std::string_view url) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  if (auto at = url.find(kMacSetting); at != std::string_view::npos) {
    return sanitizedUrl(url.substr(0, at)) + std::string(kMacSetting) +
           sanitizedUrl(url.substr(at + kMacSetting.size()));
  }
  for (char c : url) {
    if (detail::isBootTokenChar(c)) {
      out.push_back(c);
    } else {
      const auto u = static_cast<unsigned char>(c);
      out += {'%', kHex[u >> 4], kHex[u & 0xf]};
    }
  }
  return out;
}

}  // namespace

common::Result<std::string> renderBootScript(const BootScriptSpec& spec) {
  PROV_TRY(checkSpec(spec));
  const std::string wait = std::to_string(spec.retry_seconds);
  std::ostringstream s;
  s << "#!ipxe\n"
    << "echo " << spec.label << "\n"
    << ":start\n"
    << "kernel --name kernel " << spec.kernel_url << kernelArguments(spec) << " || goto failed\n"
    << "initrd --name initrd " << spec.initrd_url << " || goto failed\n"
    << "sha256sum --set kernel_sha kernel\n"
    << "iseq ${kernel_sha} " << spec.kernel_sha256 << " || goto badsum\n"
    << "sha256sum --set initrd_sha initrd\n"
    << "iseq ${initrd_sha} " << spec.initrd_sha256 << " || goto badsum\n"
    << "boot || goto failed\n"
    << ":badsum\n"
    << "echo Image checksum mismatch: refusing to boot, retrying in " << wait << " seconds\n"
    << "imgfree\n"
    << "sleep " << wait << "\n"
    << "goto start\n"
    << ":failed\n"
    << "echo Image download or boot failed, retrying in " << wait << " seconds\n"
    << "imgfree\n"
    << "sleep " << wait << "\n"
    << "goto start\n";
  return s.str();
}

std::string renderRetryScript(std::string_view reason, int seconds, std::string_view retry_url) {
  const std::string wait = std::to_string(std::clamp(seconds, 1, kMaxRetrySeconds));
  std::ostringstream s;
  s << "#!ipxe\n"
    << ":retry\n"
    << "echo " << sanitizedText(reason) << "\n"
    << "echo Asking again in " << wait << " seconds\n"
    << "sleep " << wait << "\n"
    << "chain --replace " << sanitizedUrl(retry_url) << " || goto retry\n";
  return s.str();
}

std::string renderLocalBootScript(std::string_view reason) {
  std::ostringstream s;
  s << "#!ipxe\n"
    << "echo " << sanitizedText(reason) << "\n"
    << "echo Booting from the local disk\n"
    << "sanboot --no-describe --drive 0x80 || exit\n";
  return s.str();
}

}  // namespace images
