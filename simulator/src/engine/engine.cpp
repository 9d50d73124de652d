#include "simulator/engine.hpp"

#include <sys/resource.h>

#include <csignal>

#include <unordered_map>

#include <spdlog/spdlog.h>

#include "engine/event_loop.hpp"
#include "engine/http_site.hpp"

namespace sim {

using engine::ConnectionTotals;
using engine::EventLoop;
using engine::HttpSite;
using engine::SiteConfig;

struct Engine::Impl {
  EngineOptions options;
  EventLoop loop;
  std::shared_ptr<engine::Mailbox> mailbox = std::make_shared<engine::Mailbox>(loop);
  ConnectionTotals totals;
  ConnectionTotals serviceTotals;  // kept apart: the control API is not a BMC
  std::uint16_t port = 0;
  std::vector<std::uint16_t> servicePorts;
  std::vector<std::unique_ptr<HttpSite>> bmcs;  // touched on the loop thread once it runs
  std::unordered_map<std::string, std::size_t> indexById;
  std::vector<std::unique_ptr<HttpSite>> services;

  ServedBmc describe(const HttpSite& site) const {
    std::string scheme = site.tls() ? "https://" : "http://";
    return ServedBmc{site.id(), site.address(), port,
                     scheme + site.address() + ":" + std::to_string(port), site.fingerprint()};
  }
  HttpSite* find(const std::string& id) const {
    auto found = indexById.find(id);
    return found == indexById.end() ? nullptr : bmcs[found->second].get();
  }
  common::Result<void> bindBmcs(const std::vector<SiteConfig>& configs);
  common::Result<void> bindServices(std::vector<ServiceSlot>& slots);
};

namespace {

// Thousands of BMCs, each with a listener and clients' connections, need many descriptors.
void raiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) spdlog::warn("cannot raise RLIMIT_NOFILE");
}

// libevent writes with write(2): a client that left must not kill the process with SIGPIPE.
void ignoreSigpipe() {
  std::signal(SIGPIPE, SIG_IGN);
}

common::Error unknownBmc(const std::string& id) {
  return common::notFound("unknown_bmc", "no BMC with id '" + id + "'");
}

common::Result<std::vector<SiteConfig>> siteConfigs(const EngineOptions& options,
                                                    std::vector<BmcSlot>& slots,
                                                    const std::shared_ptr<engine::Mailbox>& box) {
  std::vector<SiteConfig> configs;
  configs.reserve(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    BmcSlot& slot = slots[i];
    if (!slot.handler) return common::invalidArgument("no_handler", "BMC has no handler", slot.id);
    SiteConfig config{slot.id,
                      slot.address,
                      std::move(slot.handler),
                      nullptr,
                      slot.latency,
                      slot.transport,
                      options.seed,
                      i,
                      options.maxBodyBytes,
                      options.idleTimeoutSeconds,
                      box};
    if (options.tls) {
      PROV_ASSIGN(TlsIdentity identity, TlsIdentity::generate(slot.address));
      config.tls = std::make_shared<const TlsIdentity>(std::move(identity));
    }
    configs.push_back(std::move(config));
  }
  return configs;
}

}  // namespace

// Binds every BMC on one port. With port 0 the first bind picks it; if a later address finds it
// taken, everything is rebound on a fresh port.
common::Result<void> Engine::Impl::bindBmcs(const std::vector<SiteConfig>& configs) {
  constexpr int kAttempts = 8;
  common::Error last = common::internalError("no attempt");
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    bmcs.clear();
    std::uint16_t shared = options.port;
    bool bound = true;
    for (const SiteConfig& config : configs) {
      auto site = std::make_unique<HttpSite>(loop.base(), config, &totals);
      auto result = site->bind(shared);
      if (!result) {
        last = std::move(result).error();
        bound = false;
        break;
      }
      shared = *result;
      bmcs.push_back(std::move(site));
    }
    if (bound) {
      port = shared;
      return common::success();
    }
    if (options.port != 0) break;  // a fixed port taken: retrying will not help
  }
  bmcs.clear();
  return last;
}

common::Result<void> Engine::Impl::bindServices(std::vector<ServiceSlot>& slots) {
  for (ServiceSlot& slot : slots) {
    SiteConfig config;
    config.id = "service:" + slot.address;
    config.address = slot.address;
    config.handler = std::move(slot.handler);
    config.maxBodyBytes = options.maxBodyBytes;
    config.idleTimeoutSeconds = options.idleTimeoutSeconds;
    config.mailbox = mailbox;
    auto site = std::make_unique<HttpSite>(loop.base(), std::move(config), &serviceTotals);
    PROV_ASSIGN(std::uint16_t bound, site->bind(slot.port));
    servicePorts.push_back(bound);
    services.push_back(std::move(site));
  }
  return common::success();
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() {
  stop();
}

common::Result<std::unique_ptr<Engine>> Engine::start(EngineOptions options,
                                                      std::vector<BmcSlot> bmcs,
                                                      std::vector<ServiceSlot> services) {
  raiseFileLimit();
  ignoreSigpipe();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->loop.base() == nullptr) return common::internalError("event_base_new failed");
  for (std::size_t i = 0; i < bmcs.size(); ++i) {
    if (!impl->indexById.emplace(bmcs[i].id, i).second) {
      return common::invalidArgument("duplicate_bmc", "two BMCs share the id '" + bmcs[i].id + "'",
                                     bmcs[i].id);
    }
  }
  PROV_ASSIGN(auto configs, siteConfigs(options, bmcs, impl->mailbox));
  PROV_TRY(impl->bindBmcs(configs));
  PROV_TRY(impl->bindServices(services));
  impl->loop.startThread();
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::stop() {
  impl_->loop.stopThread([this] {
    impl_->mailbox->close();  // answers still to come find nothing to answer
    impl_->services.clear();
    impl_->bmcs.clear();
  });
}

std::uint16_t Engine::port() const {
  return impl_->port;
}

std::uint16_t Engine::servicePort(std::size_t index) const {
  return index < impl_->servicePorts.size() ? impl_->servicePorts[index] : 0;
}

bool Engine::tls() const {
  return impl_->options.tls;
}

std::vector<ServedBmc> Engine::bmcs() const {
  std::vector<ServedBmc> out;
  impl_->loop.runSync([&] {
    out.reserve(impl_->bmcs.size());
    for (const auto& site : impl_->bmcs) out.push_back(impl_->describe(*site));
  });
  return out;
}

common::Result<ServedBmc> Engine::bmc(const std::string& id) const {
  std::optional<ServedBmc> out;
  impl_->loop.runSync([&] {
    if (HttpSite* site = impl_->find(id)) out = impl_->describe(*site);
  });
  if (!out) return unknownBmc(id);
  return *out;
}

common::Result<void> Engine::setFaults(const std::string& id, const LatencyModel& latency,
                                       const TransportFaults& transport) {
  bool found = false;
  impl_->loop.runSync([&] {
    if (HttpSite* site = impl_->find(id)) {
      site->setFaults(latency, transport);
      found = true;
    }
  });
  if (!found) return unknownBmc(id);
  return common::success();
}

common::Result<std::string> Engine::rotateCertificate(const std::string& id) {
  if (!impl_->options.tls) {
    return common::conflict("plain_http", "the simulator serves plain HTTP: no certificate");
  }
  std::string address;
  impl_->loop.runSync([&] {
    if (HttpSite* site = impl_->find(id)) address = site->address();
  });
  if (address.empty()) return unknownBmc(id);
  PROV_ASSIGN(TlsIdentity identity, TlsIdentity::generate(address));  // off the loop: no stall
  auto shared = std::make_shared<const TlsIdentity>(std::move(identity));
  impl_->loop.runSync([&] {
    if (HttpSite* site = impl_->find(id)) site->setIdentity(shared);
  });
  return shared->fingerprint();
}

EngineStats Engine::stats() const {
  EngineStats out;
  impl_->loop.runSync([&] {
    out.openConnections = impl_->totals.open;
    out.peakConnections = impl_->totals.peak;
    out.bmcs.reserve(impl_->bmcs.size());
    for (const auto& site : impl_->bmcs) out.bmcs.push_back(site->stats());
  });
  for (const BmcStats& bmc : out.bmcs) {
    out.requests += bmc.requests;
    out.answered += bmc.answered;
    out.connectionsAccepted += bmc.connectionsAccepted;
    out.faults.http5xx += bmc.faults.http5xx;
    out.faults.timeouts += bmc.faults.timeouts;
    out.faults.resets += bmc.faults.resets;
    out.faults.malformed += bmc.faults.malformed;
    out.faults.unreachable += bmc.faults.unreachable;
  }
  return out;
}

}  // namespace sim
