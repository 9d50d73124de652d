#include "crawler.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "inventory_parse.hpp"
#include "redfish/errors.hpp"
#include "redfish/json.hpp"

namespace redfish::ops {
namespace {

constexpr std::string_view kExpandQuery = "?$expand=.($levels=1)";

std::string canonical(std::string_view path) {
  std::string key(path);
  while (key.size() > 1 && key.back() == '/') key.pop_back();
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return key;
}

bool expandSupported(const Json& root) {
  const Json* expand = at(root, {"ProtocolFeaturesSupported", "ExpandQuery"});
  if (expand == nullptr) return false;
  return boolAt(*expand, "NoLinks").value_or(false) && boolAt(*expand, "Levels").value_or(false);
}

// An expanded member carries its body; a plain one only "@odata.id".
bool hasBody(const Json& entry) {
  return member(entry, "@odata.type") != nullptr || member(entry, "Id") != nullptr;
}

bool isHgxPath(std::string_view path) {
  return path.find("HGX") != std::string_view::npos || path.find("hgx") != std::string_view::npos;
}

}  // namespace

Crawler::Crawler(std::shared_ptr<Client> client, CrawlOptions options, InventoryCallback done)
    : client_(std::move(client)), options_(std::move(options)), done_(std::move(done)) {}

void Crawler::start() {
  const std::string root = "/redfish/v1";
  {
    std::lock_guard lock(mutex_);
    markSeen(root);
    outstanding_ = 1;
    inFlight_ = 1;
  }
  send(Pending{root, Level::kFatal, [this](const Json& body) { onRoot(body); }, false});
}

bool Crawler::markSeen(const std::string& path) {
  return seen_.insert(canonical(path)).second;
}

void Crawler::get(const std::string& path, Level level, Handler handler) {
  if (!markSeen(path)) return;  // HPE lists some resources twice, in another case
  ++outstanding_;
  queue_->push_back(
      Pending{path, level, std::move(handler), false, handlerDepth_ + 1, memberContext_});
}

void Crawler::collection(const std::string& path, Level level, Handler perMember) {
  auto onPage = [this, level, perMember](const Json& page) {
    collectionPage(page, level, perMember);
  };
  if (!expand_) {
    get(path, level, std::move(onPage));
    return;
  }
  const std::string target = path + std::string(kExpandQuery);
  if (!markSeen(target)) return;
  ++outstanding_;
  queue_->push_back(Pending{target, level, std::move(onPage), true, handlerDepth_ + 1});
}

void Crawler::collectionPage(const Json& page, Level level, const Handler& perMember) {
  const Level memberLevel = level == Level::kFatal ? Level::kMember : level;
  if (const Json* members = member(page, "Members"); members != nullptr && members->is_array()) {
    for (const Json& entry : *members) {
      auto id = odataId(entry);
      if (!id) continue;
      if (!hasBody(entry)) {
        memberContext_ = true;
        get(*id, memberLevel, perMember);
        memberContext_ = false;
      } else if (markSeen(*id)) {
        perMember(entry);
      }
    }
  }
  if (auto next = stringAt(page, "Members@odata.nextLink")) {
    get(*next, level, [this, level, perMember](const Json& nextPage) {
      collectionPage(nextPage, level, perMember);
    });
  }
}

void Crawler::warn(std::string text) {
  inventory_.warnings.push_back(std::move(text));
}

void Crawler::fail(common::Error error) {
  if (completed_) return;
  completed_ = true;
  // Completing from inside the lock would let `done_` re-enter; hand it off after unlocking.
  failure_ = std::move(error);
}

void Crawler::send(Pending pending) {
  if (options_.stats) {
    ++options_.stats->requests;
    auto& deepest = options_.stats->longestChain;
    std::size_t seen = deepest.load();
    const auto depth = static_cast<std::size_t>(pending.depth);
    while (depth > seen && !deepest.compare_exchange_weak(seen, depth)) {
    }
  }
  Request request;
  request.target = pending.target;
  auto self = shared_from_this();
  client_->sendAsync(std::move(request),
                     [self, pending = std::move(pending)](common::Result<Response> answer) {
                       self->onResponse(pending, std::move(answer));
                     });
}

void Crawler::onResponse(const Pending& pending, common::Result<Response> answer) {
  std::vector<Pending> toSend;
  std::optional<common::Result<Json>> parsed;
  if (answer && answer->isSuccess()) parsed = parseBody(answer->body, pending.target);
  {
    std::lock_guard lock(mutex_);
    --inFlight_;
    if (!completed_) {
      queue_ = &toSend;
      handlerDepth_ = pending.depth;
      if (answer && pending.expanded && answer->status >= 400 && answer->status < 500) {
        // The BMC refused $expand: ask for the plain collection instead.
        std::string plain = pending.target.substr(0, pending.target.size() - kExpandQuery.size());
        if (markSeen(plain)) {
          ++outstanding_;
          toSend.push_back(
              Pending{plain, pending.level, pending.handler, false, pending.depth + 1});
        }
      } else if (parsed && *parsed && (*parsed)->is_object()) {
        pending.handler(**parsed);
      } else {
        common::Error error =
            !answer ? answer.error()
            : !answer->isSuccess()
                ? httpError("GET", *answer)
                : (parsed && !*parsed ? (*parsed).error()
                                      : malformedResponse(pending.target, "not a JSON object"));
        onError(pending, answer ? answer->status : 0, std::move(error));
      }
      queue_ = nullptr;
      enqueue(toSend);
    }
    toSend = completed_ ? std::vector<Pending>{} : takeSendable();
  }
  for (auto& next : toSend) send(std::move(next));
  finishOne();
}

void Crawler::enqueue(std::vector<Pending>& fresh) {
  for (auto& pending : fresh) {
    (pending.member ? members_ : links_).push_back(std::move(pending));
  }
  fresh.clear();
}

std::vector<Crawler::Pending> Crawler::takeSendable() {
  std::vector<Pending> batch;
  const std::size_t window =
      options_.maxInFlight == 0 ? std::numeric_limits<std::size_t>::max() : options_.maxInFlight;
  while (inFlight_ < window && (!links_.empty() || !members_.empty())) {
    auto& from = links_.empty() ? members_ : links_;
    batch.push_back(std::move(from.front()));
    from.pop_front();
    ++inFlight_;
  }
  return batch;
}

void Crawler::onError(const Pending& pending, long status, common::Error error) {
  const std::string where = "GET " + pending.target + ": " + error.message;
  switch (pending.level) {
    case Level::kOptional:
      warn("skipped " + where);
      return;
    case Level::kMember:
      if (status == 404) {
        warn("skipped " + where);
        return;
      }
      if (status == 503 && quirks_.hgxUnavailableWhileOff && isHgxPath(pending.target)) {
        warn("HGX system unavailable while the host is off: " + where);
        return;
      }
      [[fallthrough]];
    case Level::kFatal:
      fail(std::move(error));
  }
}

void Crawler::finishOne() {
  std::optional<common::Error> failure;
  std::optional<Inventory> inventory;
  {
    std::lock_guard lock(mutex_);
    --outstanding_;
    if (failure_ && !reported_) {
      reported_ = true;
      failure = std::move(failure_);
    } else if (outstanding_ == 0 && !completed_) {
      completed_ = true;
      reported_ = true;
      inventory = std::move(inventory_);
    }
  }
  if (failure) {
    done_(common::fail(std::move(*failure)));
  } else if (inventory) {
    finalizeInventory(*inventory);
    done_(std::move(*inventory));
  }
}

void Crawler::onRoot(const Json& root) {
  inventory_.service = parseServiceInfo(root);
  quirks_ = quirksForRoot(root);
  expand_ = options_.useExpand && expandSupported(root);
  auto systems = odataLink(root, "Systems");
  if (!systems) {
    fail(malformedResponse("/redfish/v1", "the service root links no Systems"));
    return;
  }
  collection(*systems, Level::kFatal, [this](const Json& body) { onSystem(body); });
  if (auto chassis = odataLink(root, "Chassis"); chassis && options_.crawlChassis) {
    collection(*chassis, Level::kOptional, [this](const Json& body) { onChassis(body); });
  }
  if (auto managers = odataLink(root, "Managers"); managers && options_.crawlManagers) {
    collection(*managers, Level::kOptional, [this](const Json& body) { onManager(body); });
  }
  if (auto update = odataLink(root, "UpdateService"); update && options_.crawlFirmware) {
    get(*update, Level::kOptional, [this](const Json& service) {
      if (auto firmware = odataLink(service, "FirmwareInventory")) {
        collection(*firmware, Level::kOptional, [this](const Json& body) {
          inventory_.firmware.push_back(parseFirmware(body));
        });
      }
    });
  }
}

void Crawler::onSystem(const Json& body) {
  const std::size_t index = inventory_.systems.size();
  inventory_.systems.push_back(parseSystem(body));
  if (auto link = odataLink(body, "Processors")) {
    collection(*link, Level::kOptional, [this, index](const Json& item) {
      inventory_.systems[index].processors.push_back(parseProcessor(item));
    });
  }
  if (auto link = odataLink(body, "Memory")) {
    collection(*link, Level::kOptional, [this, index](const Json& item) {
      inventory_.systems[index].memory.push_back(parseDimm(item));
    });
  }
  if (auto link = odataLink(body, "EthernetInterfaces")) {
    collection(*link, Level::kOptional, [this, index](const Json& item) {
      inventory_.systems[index].ethernetInterfaces.push_back(parseEthernetInterface(item));
    });
  }
  if (auto link = odataLink(body, "Storage")) {
    collection(*link, Level::kOptional,
               [this, index](const Json& item) { onStorage(index, item); });
  }
}

void Crawler::onStorage(std::size_t system, const Json& body) {
  auto& storage = inventory_.systems[system].storage;
  const std::size_t index = storage.size();
  storage.push_back(Storage{stringAt(body, "Id").value_or(""), {}});
  auto onDrive = [this, system, index](const Json& item) {
    inventory_.systems[system].storage[index].drives.push_back(parseDrive(item));
  };
  for (const auto& link : memberLinks(body, "Drives")) get(link, Level::kOptional, onDrive);
  if (auto link = odataLink(body, "Drives")) collection(*link, Level::kOptional, onDrive);
}

void Crawler::onChassis(const Json& body) {
  const std::size_t index = inventory_.chassis.size();
  inventory_.chassis.push_back(parseChassis(body));
  if (auto power = odataLink(body, "Power")) {
    get(*power, Level::kOptional, [this, index](const Json& item) {
      inventory_.chassis[index].powerSupplies = parsePowerSupplies(item);
    });
  } else if (auto subsystem = odataLink(body, "PowerSubsystem")) {
    get(*subsystem, Level::kOptional, [this, index](const Json& item) {
      if (auto supplies = odataLink(item, "PowerSupplies")) {
        collection(*supplies, Level::kOptional, [this, index](const Json& supply) {
          inventory_.chassis[index].powerSupplies.push_back(parsePowerSupply(supply));
        });
      }
    });
  }
  if (auto thermal = odataLink(body, "Thermal")) {
    get(*thermal, Level::kOptional, [this, index](const Json& item) {
      inventory_.chassis[index].temperatures = parseTemperatures(item);
    });
  }
  auto onPcie = [this, index](const Json& item) {
    PcieDevice device = parsePcieDevice(item);
    inventory_.chassis[index].pcieDevices.push_back(device.id);
    inventory_.pcieDevices.push_back(std::move(device));
  };
  if (auto link = odataLink(body, "PCIeDevices")) {
    collection(*link, Level::kOptional, onPcie);
  } else {
    for (const auto& device : memberLinks(body, "PCIeDevices")) {
      get(device, Level::kOptional, onPcie);
    }
  }
  if (auto link = odataLink(body, "NetworkAdapters")) {
    collection(*link, Level::kOptional,
               [this, index](const Json& item) { onNetworkAdapter(index, item); });
  }
}

void Crawler::onNetworkAdapter(std::size_t chassis, const Json& body) {
  auto& adapters = inventory_.chassis[chassis].networkAdapters;
  const std::size_t index = adapters.size();
  adapters.push_back(parseNetworkAdapter(body));
  auto ports = odataLink(body, "Ports");
  if (!ports) ports = odataLink(body, "NetworkPorts");
  if (!ports) return;
  collection(*ports, Level::kOptional, [this, chassis, index](const Json& item) {
    inventory_.chassis[chassis].networkAdapters[index].ports.push_back(parseNetworkPort(item));
  });
}

void Crawler::onManager(const Json& body) {
  const std::size_t index = inventory_.managers.size();
  inventory_.managers.push_back(parseManager(body));
  if (auto link = odataLink(body, "EthernetInterfaces")) {
    collection(*link, Level::kOptional, [this, index](const Json& item) {
      auto nic = parseEthernetInterface(item);
      if (!nic.mac.empty()) inventory_.managers[index].macs.push_back(nic.mac);
    });
  }
}

}  // namespace redfish::ops
