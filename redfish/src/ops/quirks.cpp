#include "redfish/quirks.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "redfish/json.hpp"

namespace redfish {
namespace {

Quirks make(std::string vendor) {
  Quirks q;
  q.vendor = std::move(vendor);
  return q;
}

std::vector<QuirkRule> buildTable() {
  Quirks dell = make("dell");
  dell.redundantPowerConflictIsSuccess = true;
  dell.biosNeedsConfigJob = true;
  Quirks hpe = make("hpe");
  hpe.caseInsensitiveDuplicates = true;
  Quirks ami = make("ami");
  ami.patchIfMatchStar = true;
  ami.hgxUnavailableWhileOff = true;
  Quirks nvidia = make("nvidia");
  nvidia.patchIfMatchStar = true;
  nvidia.hgxUnavailableWhileOff = true;
  Quirks supermicro = make("supermicro");
  supermicro.bootOverrideSetsUefiMode = true;
  return {
      {"dell", "", "", dell,
       "iDRAC: 409 on a redundant power action; BIOS Settings need a config job"},
      {"hpe", "", "", hpe,
       "iLO: lower-case duplicate paths; intermittent 401 (transport re-login)"},
      {"ami", "", "", ami,
       "AMI (DGX host BMC): If-Match *; settings at Bios/SD; SimpleUpdate at Actions/SimpleUpdate"},
      {"nvidia", "", "", nvidia, "HGX (OpenBMC): If-Match *; HGX system 503 while host off"},
      {"supermicro", "", "", supermicro,
       "Supermicro: override needs BootSourceOverrideMode=UEFI; BIOS registry under /registries"},
      {"lenovo", "", "", make("lenovo"), "XCC: standard; settings at Bios/Pending"},
  };
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string vendorFromName(std::string_view name) {
  const std::string text = lower(name);
  static const std::pair<std::string_view, std::string_view> kNames[] = {
      {"dell", "dell"},
      {"hpe", "hpe"},
      {"hewlett", "hpe"},
      {"lenovo", "lenovo"},
      {"supermicro", "supermicro"},
      {"ami", "ami"},
      {"nvidia", "nvidia"}};
  for (const auto& [needle, vendor] : kNames) {
    if (text.find(needle) != std::string::npos) return std::string(vendor);
  }
  return {};
}

std::vector<long> versionNumbers(std::string_view text) {
  std::vector<long> numbers;
  long current = -1;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      current = (current < 0 ? 0 : current * 10) + (c - '0');
      if (current > 1'000'000'000) current = 1'000'000'000;
    } else if (current >= 0) {
      numbers.push_back(current);
      current = -1;
    }
  }
  if (current >= 0) numbers.push_back(current);
  return numbers;
}

}  // namespace

const std::vector<QuirkRule>& quirkTable() {
  static const std::vector<QuirkRule> table = buildTable();
  return table;
}

std::string detectVendor(const Json& root) {
  for (std::string_view key : {"Vendor", "Manufacturer"}) {
    if (auto name = stringAt(root, key)) {
      if (auto vendor = vendorFromName(*name); !vendor.empty()) return vendor;
    }
  }
  if (const Json* oem = member(root, "Oem"); oem != nullptr && oem->is_object()) {
    for (const auto& item : oem->items()) {
      if (auto vendor = vendorFromName(item.key()); !vendor.empty()) return vendor;
    }
  }
  return "generic";
}

int compareVersions(std::string_view a, std::string_view b) {
  auto left = versionNumbers(a);
  auto right = versionNumbers(b);
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    long l = i < left.size() ? left[i] : 0;
    long r = i < right.size() ? right[i] : 0;
    if (l != r) return l < r ? -1 : 1;
  }
  return 0;
}

Quirks quirksFor(std::string_view vendor, std::string_view firmwareVersion) {
  for (const QuirkRule& rule : quirkTable()) {
    if (rule.vendor != vendor) continue;
    if (!firmwareVersion.empty()) {
      if (!rule.minFirmware.empty() && compareVersions(firmwareVersion, rule.minFirmware) < 0)
        continue;
      if (!rule.maxFirmware.empty() && compareVersions(firmwareVersion, rule.maxFirmware) > 0)
        continue;
    }
    return rule.quirks;
  }
  return Quirks{};
}

Quirks quirksForRoot(const Json& serviceRoot) {
  return quirksFor(detectVendor(serviceRoot));
}

}  // namespace redfish
