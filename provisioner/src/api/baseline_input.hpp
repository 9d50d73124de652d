// Reading a baseline document from a request: parsed (YAML or JSON), validated against the
// hardware profiles and packages that exist, in canonical form; and stored revisions read back.
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "inventory/baselines.hpp"
#include "inventory/database.hpp"
#include "workflows/firmware/baseline.hpp"

namespace provisioner::api {

// Unknown model = no hardware profile names it (docs/firmware.md).
common::Result<workflows::firmware::Baseline> readBaseline(inventory::Database& db,
                                                           const std::string& text);

// A stored revision's content as a baseline (it was canonical when stored).
common::Result<workflows::firmware::Baseline> storedBaseline(
    const inventory::BaselineRevision& revision);

}  // namespace provisioner::api
