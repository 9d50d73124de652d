// The drive erase planner: order of preference, NIST levels, and every fallback with its reason.
#include <catch2/catch.hpp>

#include "agent/drives.hpp"

using agent::DriveCapabilities;
using agent::EraseMethod;
using agent::planDriveErase;

namespace {

DriveCapabilities nvmeFull() {
  DriveCapabilities caps;
  caps.sanitize_crypto = true;
  caps.sanitize_block = true;
  caps.format_nvm = true;
  caps.format_crypto_erase = true;
  return caps;
}

std::vector<std::string> fallbackMethods(const agent::DriveErasePlan& plan) {
  std::vector<std::string> methods;
  for (const auto& fallback : plan.fallbacks) methods.push_back(fallback.method);
  return methods;
}

}  // namespace

TEST_CASE("drive plan prefers NVMe sanitize crypto erase, a purge, with no fallback", "[drives]") {
  auto plan = planDriveErase(nvmeFull());
  CHECK(plan.method == EraseMethod::kNvmeSanitizeCrypto);
  CHECK(plan.nist_level == "purge");
  CHECK(plan.technique == "cryptographic erase");
  CHECK(plan.fallbacks.empty());
  REQUIRE(plan.usable.size() == 4);  // the rest, best first, for runtime fallbacks
  CHECK(plan.usable[1].method == EraseMethod::kNvmeSanitizeBlock);
  CHECK(plan.usable[2].method == EraseMethod::kNvmeFormatSes2);
  CHECK(plan.usable[3].method == EraseMethod::kNvmeFormatSes1);
}

TEST_CASE("drive plan falls back to sanitize block erase and says why", "[drives]") {
  auto caps = nvmeFull();
  caps.sanitize_crypto = false;
  auto plan = planDriveErase(caps);
  CHECK(plan.method == EraseMethod::kNvmeSanitizeBlock);
  CHECK(plan.nist_level == "purge");
  CHECK(plan.technique == "block erase");
  REQUIRE(plan.fallbacks.size() == 1);
  CHECK(plan.fallbacks[0].method == "nvme_sanitize_crypto");
  CHECK(plan.fallbacks[0].reason.find("SANICAP.CES=0") != std::string::npos);
}

TEST_CASE("drive plan without sanitize uses format with crypto erase, a purge", "[drives]") {
  auto caps = nvmeFull();
  caps.sanitize_crypto = caps.sanitize_block = false;
  auto plan = planDriveErase(caps);
  CHECK(plan.method == EraseMethod::kNvmeFormatSes2);
  CHECK(plan.nist_level == "purge");
  CHECK(plan.technique == "cryptographic erase");
  CHECK(fallbackMethods(plan) ==
        std::vector<std::string>{"nvme_sanitize_crypto", "nvme_sanitize_block"});
  CHECK(plan.fallbacks[1].reason.find("SANICAP.BES=0") != std::string::npos);
}

TEST_CASE("drive plan with only format user data erase reaches clear", "[drives]") {
  DriveCapabilities caps;
  caps.format_nvm = true;
  auto plan = planDriveErase(caps);
  CHECK(plan.method == EraseMethod::kNvmeFormatSes1);
  CHECK(plan.nist_level == "clear");
  CHECK(plan.technique == "user data erase");
  CHECK(fallbackMethods(plan) == std::vector<std::string>{"nvme_sanitize_crypto",
                                                          "nvme_sanitize_block",
                                                          "nvme_format_ses2"});
  CHECK(plan.fallbacks[2].reason.find("FNA.CRYES=0") != std::string::npos);
}

TEST_CASE("drive plan for ATA: enhanced secure erase is purge, normal is clear", "[drives]") {
  DriveCapabilities caps;
  caps.ata_security = true;
  caps.ata_enhanced_erase = true;
  auto enhanced = planDriveErase(caps);
  CHECK(enhanced.method == EraseMethod::kAtaEnhancedSecureErase);
  CHECK(enhanced.nist_level == "purge");
  CHECK(enhanced.fallbacks.size() == 4);  // every NVMe method, each with its reason
  for (const auto& fallback : enhanced.fallbacks) CHECK_FALSE(fallback.reason.empty());

  caps.ata_enhanced_erase = false;
  auto normal = planDriveErase(caps);
  CHECK(normal.method == EraseMethod::kAtaSecureErase);
  CHECK(normal.nist_level == "clear");
  REQUIRE(normal.fallbacks.size() == 5);
  CHECK(normal.fallbacks[4].method == "ata_enhanced_secure_erase");
  CHECK(normal.fallbacks[4].reason.find("enhanced") != std::string::npos);
}

TEST_CASE("drive plan overwrites only when nothing better is offered", "[drives]") {
  DriveCapabilities caps;
  caps.overwrite = true;
  auto plan = planDriveErase(caps);
  CHECK(plan.method == EraseMethod::kOverwrite);
  CHECK(plan.nist_level == "clear");
  CHECK(plan.technique == "overwrite with zeros");
  CHECK(plan.fallbacks.size() == 6);
  CHECK(plan.fallbacks.back().method == "ata_secure_erase");
}

TEST_CASE("drive plan with no capability is none and records every method", "[drives]") {
  auto plan = planDriveErase(DriveCapabilities{});
  CHECK(plan.method == EraseMethod::kNone);
  CHECK(plan.nist_level == "none");
  CHECK(plan.usable.empty());
  CHECK(fallbackMethods(plan) ==
        std::vector<std::string>{"nvme_sanitize_crypto", "nvme_sanitize_block", "nvme_format_ses2",
                                 "nvme_format_ses1", "ata_enhanced_secure_erase",
                                 "ata_secure_erase", "overwrite"});
  for (const auto& fallback : plan.fallbacks) CHECK_FALSE(fallback.reason.empty());
}

TEST_CASE("erase methods carry the wire names", "[drives]") {
  CHECK(agent::toString(EraseMethod::kNvmeSanitizeCrypto) == "nvme_sanitize_crypto");
  CHECK(agent::toString(EraseMethod::kNvmeFormatSes2) == "nvme_format_ses2");
  CHECK(agent::toString(EraseMethod::kAtaEnhancedSecureErase) == "ata_enhanced_secure_erase");
  CHECK(agent::toString(EraseMethod::kOverwrite) == "overwrite");
  CHECK(agent::toString(EraseMethod::kNone) == "none");
}
