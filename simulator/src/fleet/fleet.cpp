#include "simulator/fleet.hpp"

#include <cstdio>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "fleet/image_fetcher.hpp"
#include "host/host_booter.hpp"
#include "model/json_util.hpp"
#include "simulator/control_api.hpp"

namespace sim {

namespace {

struct Node {
  std::string id;
  std::string rack;
  std::string profile;
  std::shared_ptr<FleetNode> node;
  Faults faults;  // guarded by Fleet::Impl::mutex
};

std::string nodeId(const std::string& rack, int number) {
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "-n%02d", number);
  return rack + suffix;
}

common::Error unknownBmc(const std::string& id) {
  return common::notFound("unknown_bmc", "no BMC with id '" + id + "'");
}

}  // namespace

struct Fleet::Impl {
  FleetSpec spec;
  std::unique_ptr<SimClock> clock;
  // Declared before the nodes and the engine: their boot observers and fetchers point at them.
  std::unique_ptr<host::HostBooter> booter;
  fleet::ImageFetchers fetchers;
  std::vector<Node> nodes;
  std::unordered_map<std::string, std::size_t> indexById;
  std::unique_ptr<Engine> engine;
  mutable std::mutex mutex;  // the nodes' faults; never held while calling the engine

  const Node* find(const std::string& id) const {
    auto found = indexById.find(id);
    return found == indexById.end() ? nullptr : &nodes[found->second];
  }
  BmcEndpoint endpoint(const Node& node, const ServedBmc& served) const {
    return BmcEndpoint{
        node.id,     node.rack,          node.profile,     served.baseUrl,       served.address,
        served.port, served.fingerprint, spec.credentials, node.node->identity()};
  }
  common::Result<void> createNodes(const NodeFactory& factory);
  void startHosts();
  common::Result<host::Machine> machine(const std::string& id) const;
  double gpuSpeed(std::size_t index) const;
  common::Result<void> addNode(const NodeFactory& factory, FleetNodePlan plan, Faults faults);
};

common::Result<void> Fleet::Impl::addNode(const NodeFactory& factory, FleetNodePlan plan,
                                          Faults faults) {
  plan.index = nodes.size();
  plan.seed = spec.seed ^ plan.index;
  plan.credentials = spec.credentials;
  plan.clock = clock.get();
  PROV_ASSIGN(std::shared_ptr<FleetNode> node, factory(plan));
  node->setBehaviourFaults(faults.behaviour);
  node->setImageFetcher([this](const std::string& uri, std::function<void(ImageDownload)> done) {
    fetchers.fetch(uri, std::move(done));
  });
  indexById.emplace(plan.id, nodes.size());
  nodes.push_back(Node{plan.id, plan.rack, plan.profile, std::move(node), faults});
  return common::success();
}

common::Result<void> Fleet::Impl::createNodes(const NodeFactory& factory) {
  if (!spec.staticDumpDir.empty()) {
    FleetNodePlan plan;
    plan.id = "static";
    plan.rack = "static";
    plan.profile = "dump";
    plan.staticDumpDir = spec.staticDumpDir;
    return addNode(factory, plan, spec.faults);
  }
  for (const RackSpec& rack : spec.racks) {
    for (int n = 1; n <= rack.nodes; ++n) {
      FleetNodePlan plan;
      plan.id = nodeId(rack.name, n);
      plan.rack = rack.name;
      plan.profile = rack.profile;
      auto custom = rack.nodeFaults.find(n);
      PROV_TRY(
          addNode(factory, plan, custom == rack.nodeFaults.end() ? rack.faults : custom->second));
    }
  }
  return common::success();
}

common::Result<host::Machine> Fleet::Impl::machine(const std::string& id) const {
  auto found = indexById.find(id);
  if (found == indexById.end()) return unknownBmc(id);
  const Node& node = nodes[found->second];
  host::Machine machine;
  machine.identity = node.node->identity();
  machine.seed = spec.seed ^ found->second;
  std::lock_guard lock(mutex);
  machine.gpuFaults = node.faults.host.gpuFaults;
  machine.gpuSpeed = [this, index = found->second] { return gpuSpeed(index); };
  return machine;
}

double Fleet::Impl::gpuSpeed(std::size_t index) const {
  std::vector<FirmwareSlowdown> rules;
  {
    std::lock_guard lock(mutex);
    rules = nodes[index].faults.host.firmwareSlowdowns;
  }
  if (rules.empty()) return 1;
  return firmwareGpuSpeed(rules, nodes[index].node->firmwareVersions());
}

void Fleet::Impl::startHosts() {
  booter = std::make_unique<host::HostBooter>(
      spec.boot, *clock, [this](const std::string& id) { return machine(id); });
  for (Node& node : nodes) {
    node.node->setBootObserver(
        [booter = booter.get()](const BootEvent& event) { booter->onBoot(event); });
  }
}

Fleet::Fleet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Fleet::~Fleet() {
  stop();
}

common::Result<std::unique_ptr<Fleet>> Fleet::start(FleetSpec spec, FleetOptions options,
                                                    NodeFactory factory) {
  if (spec.racks.empty() && spec.staticDumpDir.empty()) {
    return common::invalidArgument("invalid_fleet", "racks must be a non-empty array", "racks");
  }
  auto impl = std::make_unique<Impl>();
  impl->spec = std::move(spec);
  impl->clock = std::make_unique<SimClock>(impl->spec.timeScale);
  PROV_TRY(impl->createNodes(factory));
  impl->startHosts();

  std::vector<std::string> addresses{impl->spec.staticAddress};
  if (impl->spec.staticDumpDir.empty()) {
    PROV_ASSIGN(addresses, loopbackAddresses(impl->spec.addressBase, impl->nodes.size()));
  }
  std::vector<BmcSlot> slots;
  slots.reserve(impl->nodes.size());
  for (std::size_t i = 0; i < impl->nodes.size(); ++i) {
    const Node& node = impl->nodes[i];
    slots.push_back(
        BmcSlot{node.id, addresses[i], node.node, node.faults.latency, node.faults.transport});
  }
  std::unique_ptr<Fleet> fleet(new Fleet(std::move(impl)));
  std::vector<ServiceSlot> services;
  if (options.controlPort) {
    services.push_back(
        ServiceSlot{"127.0.0.1", *options.controlPort, std::make_shared<ControlApi>(*fleet)});
  }
  EngineOptions engineOptions;
  engineOptions.tls = fleet->impl_->spec.tls;
  engineOptions.port = fleet->impl_->spec.port;
  engineOptions.seed = fleet->impl_->spec.seed;
  PROV_ASSIGN(fleet->impl_->engine,
              Engine::start(engineOptions, std::move(slots), std::move(services)));
  return fleet;
}

double firmwareGpuSpeed(const std::vector<FirmwareSlowdown>& rules,
                        const std::vector<FirmwareVersion>& inventory) {
  double speed = 1;
  for (const FirmwareSlowdown& rule : rules) {
    auto match = model::lower(rule.match);
    for (const FirmwareVersion& member : inventory) {
      bool named = model::lower(member.id).find(match) != std::string::npos ||
                   model::lower(member.name).find(match) != std::string::npos;
      if (named && member.version == rule.version) {
        speed *= 1 - rule.percent / 100;
        break;
      }
    }
  }
  return speed;
}

void Fleet::stop() {
  if (impl_->booter) impl_->booter->stop();  // no new boots from here on; threads joined
  impl_->fetchers.stop();  // downloads finish; their answers still reach the running engine
  if (impl_->engine) impl_->engine->stop();
}

std::vector<BmcEndpoint> Fleet::bmcs() const {
  std::vector<ServedBmc> served = impl_->engine->bmcs();
  std::vector<BmcEndpoint> out;
  out.reserve(served.size());
  for (std::size_t i = 0; i < served.size() && i < impl_->nodes.size(); ++i) {
    out.push_back(impl_->endpoint(impl_->nodes[i], served[i]));
  }
  return out;
}

common::Result<BmcEndpoint> Fleet::bmc(const std::string& id) const {
  const Node* node = impl_->find(id);
  if (node == nullptr) return unknownBmc(id);
  PROV_ASSIGN(ServedBmc served, impl_->engine->bmc(id));
  return impl_->endpoint(*node, served);
}

common::Result<Faults> Fleet::faults(const std::string& id) const {
  const Node* node = impl_->find(id);
  if (node == nullptr) return unknownBmc(id);
  std::lock_guard lock(impl_->mutex);
  return node->faults;
}

common::Result<void> Fleet::setFaults(const std::string& id, const Faults& faults) {
  auto found = impl_->indexById.find(id);
  if (found == impl_->indexById.end()) return unknownBmc(id);
  Node& node = impl_->nodes[found->second];
  bool rotate = false;
  {
    std::lock_guard lock(impl_->mutex);
    rotate = faults.behaviour.certificateRotated && !node.faults.behaviour.certificateRotated;
    node.faults = faults;
  }
  node.node->setBehaviourFaults(faults.behaviour);
  PROV_TRY(impl_->engine->setFaults(id, faults.latency, faults.transport));
  if (rotate && impl_->spec.tls) PROV_TRY(impl_->engine->rotateCertificate(id));
  return common::success();
}

common::Result<Faults> Fleet::patchFaults(const std::string& id, const nlohmann::json& patch) {
  PROV_ASSIGN(Faults current, faults(id));
  PROV_ASSIGN(Faults patched, applyFaultsJson(current, patch));
  PROV_TRY(setFaults(id, patched));
  return patched;
}

common::Result<void> Fleet::patchAllFaults(const nlohmann::json& patch) {
  PROV_TRY(applyFaultsJson({}, patch));  // all or nothing: a bad patch changes no BMC
  for (const Node& node : impl_->nodes) PROV_TRY(patchFaults(node.id, patch));
  return common::success();
}

common::Result<nlohmann::json> Fleet::snapshot(const std::string& id) const {
  const Node* node = impl_->find(id);
  if (node == nullptr) return unknownBmc(id);
  nlohmann::json snapshot = node->node->snapshot();
  if (snapshot.is_object()) {
    snapshot["host"] = hostStatusJson(impl_->booter->status(id));
    snapshot["host"]["gpu_speed"] = impl_->gpuSpeed(impl_->indexById.at(id));
  }
  return snapshot;
}

common::Result<HostStatus> Fleet::hostStatus(const std::string& id) const {
  if (impl_->find(id) == nullptr) return unknownBmc(id);
  return impl_->booter->status(id);
}

EngineStats Fleet::stats() const {
  return impl_->engine->stats();
}

SimClock& Fleet::clock() {
  return *impl_->clock;
}

const SimClock& Fleet::clock() const {
  return *impl_->clock;
}

std::size_t Fleet::size() const {
  return impl_->nodes.size();
}

const FleetSpec& Fleet::spec() const {
  return impl_->spec;
}

std::uint16_t Fleet::port() const {
  return impl_->engine->port();
}

std::uint16_t Fleet::controlPort() const {
  return impl_->engine->servicePort(0);
}

}  // namespace sim
