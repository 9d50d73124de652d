// wipeDrives: every listed drive but the ones the service erases out of band; and the real clock.
#include <algorithm>
#include <thread>

#include "agent/drives.hpp"

namespace agent {

std::chrono::steady_clock::time_point RealEraseClock::now() {
  return std::chrono::steady_clock::now();
}

void RealEraseClock::wait(std::chrono::milliseconds delay) {
  std::this_thread::sleep_for(delay);
}

DrivesWipe wipeDrives(DriveBackend& backend, const WipePlan& plan, EraseClock& clock,
                      const DriveEraseOptions& options) {
  DrivesWipe wipe;
  auto drives = backend.listDrives();
  if (!drives) {
    wipe.error = "listing drives failed: " + drives.error().message;
    return wipe;
  }
  const auto& skip = plan.skip_drive_serials;
  for (const DriveInfo& drive : *drives) {
    if (std::find(skip.begin(), skip.end(), drive.serial) != skip.end()) {
      wipe.skipped.push_back(drive.serial);
      continue;
    }
    wipe.drives.push_back(
        sanitizeDrive(backend, drive, plan, planDriveErase(drive.capabilities), clock, options));
  }
  return wipe;
}

}  // namespace agent
