// sanitizeDrive: canaries and sample, the erase (with runtime fallbacks), the wait, the check.
#include <chrono>
#include <ctime>

#include "agent/drives.hpp"
#include "drives/drive_verify.hpp"

namespace agent {

namespace {

std::string nowIso8601() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

DriveReport identityOf(const DriveInfo& drive, const DriveEraseOptions& options) {
  DriveReport report;
  report.serial = drive.serial;
  report.model = drive.model;
  report.manufacturer = drive.manufacturer;
  report.media_type = drive.media_type;
  report.interface = drive.interface;
  report.capacity_bytes = drive.capacity_bytes;
  report.tool = options.tool;
  report.tool_version = options.tool_version;
  report.started_at = nowIso8601();
  return report;
}

// A failed erase reached no level, whatever it set out to reach; `method` still says what it tried.
DriveReport finish(DriveReport report, std::string error) {
  report.error = std::move(error);
  report.result = report.error.empty() ? "passed" : "failed";
  if (!report.error.empty()) report.nist_level = "none";
  report.finished_at = nowIso8601();
  return report;
}

// Starts the first usable method the drive accepts; each refusal becomes a fallback.
common::Result<EraseChoice> startErase(DriveBackend& backend, const DriveInfo& drive,
                                       const DriveErasePlan& plan, DriveReport& report) {
  for (const EraseChoice& choice : plan.usable) {
    auto started = backend.startErase(drive, choice.method);
    if (started) return choice;
    report.fallbacks.push_back({std::string(toString(choice.method)),
                                "the drive refused the command: " + started.error().message});
  }
  return common::internalError("the drive refused every erase method it advertises");
}

std::string seconds(std::chrono::milliseconds duration) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(duration).count()) + " s";
}

// Polls until done; bounded by the deadline, since every wait advances the clock.
common::Result<void> awaitErase(DriveBackend& backend, const DriveInfo& drive, EraseClock& clock,
                                const DriveEraseOptions& options) {
  auto deadline = clock.now() + options.timeout;
  while (true) {
    PROV_ASSIGN(EraseProgress progress, backend.pollErase(drive));
    if (progress.done) return common::success();
    if (clock.now() >= deadline) {
      return common::Error{common::ErrorKind::kTimeout,
                           "erase_timeout",
                           "the erase did not complete within " + seconds(options.timeout) +
                               " (last progress " +
                               std::to_string(static_cast<int>(progress.percent)) + "%)",
                           {},
                           {}};
    }
    clock.wait(options.poll_interval);
  }
}

std::string verificationError(const DriveVerification& v) {
  if (v.canaries_remaining == 0 && v.unchanged_blocks == 0) return "";
  return "verification failed after a reported erase: " + std::to_string(v.canaries_remaining) +
         " of " + std::to_string(v.canaries_written) + " canaries remain, " +
         std::to_string(v.unchanged_blocks) + " of " + std::to_string(v.sample_blocks) +
         " sampled blocks unchanged";
}

// Canaries written, sample fingerprinted; the counts are set only once each step is complete.
common::Result<void> prepareVerification(drives::Verifier& verifier, std::uint64_t blocks,
                                         const WipePlan& plan, DriveVerification& out) {
  verifier.canaries = canaryPositions(verifier.seed, blocks);
  PROV_TRY(verifier.writeCanaries());
  out.canaries_written = verifier.canaries.size();
  auto positions = samplePositions(verifier.seed, blocks, plan.drive_sample_coverage);
  PROV_TRY(verifier.fingerprintSample(positions));
  out.sample_blocks = positions.size();
  return common::success();
}

}  // namespace

DriveReport sanitizeDrive(DriveBackend& backend, const DriveInfo& drive, const WipePlan& plan,
                          const DriveErasePlan& erase_plan, EraseClock& clock,
                          const DriveEraseOptions& options) {
  DriveReport report = identityOf(drive, options);
  report.fallbacks = erase_plan.fallbacks;
  report.verification.sample_coverage = plan.drive_sample_coverage;
  if (erase_plan.usable.empty()) {
    return finish(std::move(report), "the drive offers no erase method that removes data");
  }
  std::uint64_t blocks = drive.block_size == 0 ? 0 : drive.capacity_bytes / drive.block_size;
  if (blocks == 0) return finish(std::move(report), "the drive reports no blocks");

  drives::Verifier verifier{backend, drive, driveSeed(plan.seed, drive.serial), {}, {}};
  // A drive that cannot take the canaries or be read is still erased: removing the data matters
  // more than proving it, and the result says it is unproven.
  auto prepared = prepareVerification(verifier, blocks, plan, report.verification);
  auto choice = startErase(backend, drive, erase_plan, report);
  if (!choice) return finish(std::move(report), choice.error().message);
  report.method = std::string(toString(choice->method));
  report.nist_level = choice->nist_level;
  report.technique = choice->technique;
  if (auto erased = awaitErase(backend, drive, clock, options); !erased) {
    return finish(std::move(report), erased.error().message);
  }
  if (!prepared) {
    return finish(std::move(report), "erased, but not verifiable: " + prepared.error().message);
  }
  if (auto checked = verifier.check(choice->method, report.verification); !checked) {
    return finish(std::move(report), checked.error().message);
  }
  return finish(std::move(report), verificationError(report.verification));
}

}  // namespace agent
