// Judging the agent's wipe report (contracts/decommission-wire.md): the agent reports facts, this
// decides per device whether it was sanitized, and turns each into the inventory's NIST SP 800-88
// record. Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/wipe.hpp"
#include "inventory/decommissions.hpp"

namespace workflows::decommission {

struct WipeCriteria {
  double min_gpu_coverage = 0.95;  // covered_bytes >= this * total_bytes
  int expected_gpus = 0;           // the node's GPU count; 0: not checked
};

// One device (or, with an empty serial, the report as a whole) that did not pass, and why.
struct DeviceFailure {
  std::string serial;
  std::string what;
};

struct WipeJudgement {
  std::vector<inventory::DeviceSanitization> devices;  // one per GPU and drive of the report
  std::vector<DeviceFailure> failures;                 // empty: every device passed
  bool passed() const { return failures.empty(); }
};

// Why a GPU did not pass, nullopt when it did: error empty, the three passes (pattern, random,
// zero) each with bytes_written == bytes_verified == covered_bytes, no mismatch, and
// covered_bytes >= min_coverage * total_bytes.
std::optional<std::string> gpuWipeFailure(const agent::GpuWipeReport& gpu, double min_coverage);

// Why a drive did not pass, nullopt when it did: result "passed", a method other than "none",
// no canary left and no sampled block unchanged.
std::optional<std::string> driveWipeFailure(const agent::DriveReport& drive);

inventory::DeviceSanitization gpuRecord(const agent::WipeReport& report,
                                        const agent::GpuWipeReport& gpu, double min_coverage);
inventory::DeviceSanitization driveRecord(const agent::WipeReport& report,
                                          const agent::DriveReport& drive);

// Every device of the report judged; a report with fewer GPUs than expected fails as a whole.
WipeJudgement judgeWipeReport(const agent::WipeReport& report, const WipeCriteria& criteria);

// The first failure as one line for timelines ("<serial>: <what>", "and N more"); "" when none.
std::string describeFailures(const std::vector<DeviceFailure>& failures);

}  // namespace workflows::decommission
