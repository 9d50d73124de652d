// Firmware API tests: a hardware profile, packages uploaded and registered, baseline documents.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "support/service_fixture.hpp"

namespace testing {

// PUT /api/v1/hardware-profiles/{name} for `model` (as operator); optional baseline name.
void putProfile(ServiceFixture& svc, const std::string& name, const std::string& model,
                const std::string& baseline = "");

// The registration body of a package whose artifact is `sha256`.
nlohmann::json packageBody(const std::string& name, const std::string& version,
                           const std::string& component, const std::string& sha256);

// Uploads `bytes` and registers them as the package; returns the registration's status.
int registerPackage(ServiceFixture& svc, const std::string& name, const std::string& version,
                    const std::string& component, const std::string& bytes);

// The baseline YAML used across the tests: DGX H100 bmc -> dgx-bmc `bmc_target`, gpu by
// SoftwareId with accepted versions only.
std::string baselineYaml(const std::string& bmc_target = "24.10.1");

// Posts a baseline document (YAML) to /api/v1/baselines[?dry_run=true].
HttpResult applyBaseline(ServiceFixture& svc, const std::string& yaml, bool dry_run = false);

}  // namespace testing
