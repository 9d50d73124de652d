#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>

#include "agent/agent_main.hpp"
#include "common/mac_address.hpp"

namespace agent {
namespace {

constexpr std::size_t kMaxNics = 64;

std::string readTrimmed(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  std::string value = text.str().substr(0, 256);
  auto is_space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!value.empty() && is_space(static_cast<unsigned char>(value.back()))) value.pop_back();
  auto first = std::find_if_not(value.begin(), value.end(), is_space);
  return std::string(first, value.end());
}

bool isVirtual(const std::filesystem::path& sys_root, const std::string& name) {
  std::error_code ec;
  return std::filesystem::exists(sys_root / "devices/virtual/net" / name, ec);
}

std::vector<NicFacts> readNics(const std::filesystem::path& sys_root) {
  std::vector<NicFacts> nics;
  std::error_code ec;
  std::filesystem::directory_iterator it(sys_root / "class/net", ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name == "lo" || isVirtual(sys_root, name)) continue;
    auto mac = common::normalizeMac(readTrimmed(it->path() / "address"));
    if (!mac || *mac == "00:00:00:00:00:00") continue;
    nics.push_back(NicFacts{name, *mac});
  }
  std::sort(nics.begin(), nics.end(),
            [](const NicFacts& a, const NicFacts& b) { return a.name < b.name; });
  if (nics.size() > kMaxNics) nics.resize(kMaxNics);
  return nics;
}

}  // namespace

HostFacts readHostFacts(const std::filesystem::path& sys_root) {
  HostFacts facts;
  facts.host_serial = readTrimmed(sys_root / "class/dmi/id/product_serial");
  facts.nics = readNics(sys_root);
  return facts;
}

}  // namespace agent
