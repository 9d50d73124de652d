// The erase planner: the best method a drive offers and the NIST SP 800-88 level it reaches.
//
// Levels, conservatively (SP 800-88 Rev. 1 Table A-8 and IEEE 2883-2022, which Rev. 2 defers to):
// - NVMe Sanitize, crypto or block erase: Purge. Sanitize covers user data, caches,
// over-provisioned
//   and unmapped media, and resumes after a reset until done.
// - NVMe Format, SES=2 (Cryptographic Erase): Purge. Every user block was encrypted with a media
//   key; the key is replaced, so no laboratory read recovers plaintext.
// - NVMe Format, SES=1 (User Data Erase): Clear. Rev. 1 lists it for Purge with the caveat that
//   implementations vary (some only deallocate the mapping); IEEE 2883 puts it at Clear. We record
//   the level we can defend.
// - ATA SECURITY ERASE UNIT, enhanced: Purge. It writes the vendor pattern to every user and
//   reallocated/reserved area (Rev. 1 Table A-5).
// - ATA SECURITY ERASE UNIT, normal: Clear. Only the user-addressable LBAs are written.
// - Overwrite with zeros by the agent: Clear. It reaches user-addressable blocks only.
#include "agent/drives.hpp"

#include <array>

namespace agent {

namespace {

struct Candidate {
  EraseMethod method;
  bool DriveCapabilities::*capability;
  const char* nist_level;
  const char* technique;
  const char* missing;  // the reason recorded when the drive does not offer it
};

constexpr std::array<Candidate, 7> kPreference{{
    {EraseMethod::kNvmeSanitizeCrypto, &DriveCapabilities::sanitize_crypto, "purge",
     "cryptographic erase",
     "the drive does not support NVMe Sanitize crypto erase (SANICAP.CES=0)"},
    {EraseMethod::kNvmeSanitizeBlock, &DriveCapabilities::sanitize_block, "purge", "block erase",
     "the drive does not support NVMe Sanitize block erase (SANICAP.BES=0)"},
    {EraseMethod::kNvmeFormatSes2, &DriveCapabilities::format_crypto_erase, "purge",
     "cryptographic erase",
     "the drive does not support cryptographic erase in NVMe Format (FNA.CRYES=0)"},
    {EraseMethod::kNvmeFormatSes1, &DriveCapabilities::format_nvm, "clear", "user data erase",
     "the drive does not support NVMe Format NVM (OACS.FORMAT=0)"},
    {EraseMethod::kAtaEnhancedSecureErase, &DriveCapabilities::ata_enhanced_erase, "purge",
     "enhanced secure erase", "the drive does not support ATA enhanced security erase"},
    {EraseMethod::kAtaSecureErase, &DriveCapabilities::ata_security, "clear", "secure erase",
     "the drive does not support the ATA Security feature set"},
    {EraseMethod::kOverwrite, &DriveCapabilities::overwrite, "clear", "overwrite with zeros",
     "the backend cannot overwrite this drive"},
}};

}  // namespace

std::string_view toString(EraseMethod method) {
  switch (method) {
    case EraseMethod::kNvmeSanitizeCrypto:
      return "nvme_sanitize_crypto";
    case EraseMethod::kNvmeSanitizeBlock:
      return "nvme_sanitize_block";
    case EraseMethod::kNvmeFormatSes2:
      return "nvme_format_ses2";
    case EraseMethod::kNvmeFormatSes1:
      return "nvme_format_ses1";
    case EraseMethod::kAtaEnhancedSecureErase:
      return "ata_enhanced_secure_erase";
    case EraseMethod::kAtaSecureErase:
      return "ata_secure_erase";
    case EraseMethod::kOverwrite:
      return "overwrite";
    case EraseMethod::kNone:
      return "none";
  }
  return "none";
}

DriveErasePlan planDriveErase(const DriveCapabilities& capabilities) {
  DriveErasePlan plan;
  for (const Candidate& candidate : kPreference) {
    if (capabilities.*candidate.capability) {
      plan.usable.push_back({candidate.method, candidate.nist_level, candidate.technique});
    } else if (plan.usable.empty()) {
      plan.fallbacks.push_back({std::string(toString(candidate.method)), candidate.missing});
    }
  }
  if (plan.usable.empty()) return plan;  // kNone, "none": nothing that erases data is offered
  plan.method = plan.usable.front().method;
  plan.nist_level = plan.usable.front().nist_level;
  plan.technique = plan.usable.front().technique;
  return plan;
}

}  // namespace agent
