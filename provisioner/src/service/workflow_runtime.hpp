// The workflow side of `provisioner serve`: the Redfish transport, the engine with the node
// lifecycle registered, and the discovery sweeper, built from the service's flags.
#pragma once

#include <memory>
#include <string>

#include "common/result.hpp"
#include "common/secret_box.hpp"
#include "inventory/database.hpp"
#include "provisioner/http/metrics.hpp"
#include "provisioner/service/options.hpp"
#include "workflows/clock.hpp"

namespace images {
class ArtifactStore;
}  // namespace images
namespace redfish {
class Transport;
}  // namespace redfish
namespace workflows {
class Engine;
class Sweeper;
}  // namespace workflows

namespace provisioner::service {

struct WorkflowRuntime {
  std::shared_ptr<redfish::Transport> transport;
  std::shared_ptr<workflows::Engine> engine;
  std::shared_ptr<workflows::Sweeper> sweeper;
  bool reinventory = false;   // start the fleet's firmware re-inventory run with the engine
  bool health_sweep = false;  // start the fleet's out-of-band health sweep run

  ~WorkflowRuntime();  // stop()
  void start();
  // Lets in-flight steps finish and writes their outcomes; then stops sweeps and the transport.
  void stop();
};

// `public_url` is how BMCs (event subscriptions) and booting nodes reach this service. The
// engine's figures join /metrics through `metrics`. `health_clock`: the GPU health history's
// clock (healthClock).
common::Result<std::unique_ptr<WorkflowRuntime>> makeWorkflowRuntime(
    const ServiceOptions& options, inventory::DatabasePtr db,
    std::shared_ptr<const common::SecretBox> secrets, const std::string& public_url,
    http::MetricsRegistry& metrics, std::shared_ptr<images::ArtifactStore> artifacts,
    std::shared_ptr<workflows::Clock> health_clock);

// The GPU health history's clock: the system's, or sped up from the epoch on when the options
// ask for it (a simulated fleet living days in minutes).
std::shared_ptr<workflows::Clock> healthClock(const ServiceOptions& options);

}  // namespace provisioner::service
