// Triggers: DHCP lease events, rack manifests and subnet sweeps report BMCs; each BMC seen starts
// (or finds) its node lifecycle run. Repeats are harmless: the same BMC is the same row and the
// same open run.
#include <nlohmann/json.hpp>

#include <set>

#include "common/mac_address.hpp"
#include "discovery_views.hpp"
#include "input.hpp"
#include "provisioner/http/pagination.hpp"
#include "routes.hpp"
#include "workflows/discovery.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

constexpr std::size_t kMaxManifestNodes = 1000;

Result<workflows::Engine*> engineOf(const ApiContext& ctx) {
  if (!ctx.engine) {
    return common::fail(common::unavailable(
        "workflows_disabled", "this service runs without the workflow engine (--no-workflows)"));
  }
  return ctx.engine.get();
}

Result<std::string> macField(const http::FieldReader& in, std::string_view name) {
  PROV_ASSIGN(auto raw, in.requiredString(name, 64));
  auto mac = common::normalizeMac(raw);
  if (!mac) return common::fail(std::move(mac).error().withField(in.pathOf(name)));
  return *mac;
}

// Records the BMC and starts its lifecycle: {"discovery", "run_id", "run_created"}.
Result<json> recordAndStart(const ApiContext& ctx, workflows::Engine& engine,
                            const inventory::DiscoveryReport& report, const std::string& actor) {
  PROV_ASSIGN(auto seen, inventory::recordDiscovery(*ctx.db, report));
  if (report.released) {
    return json{{"discovery", toJson(seen.discovery)}, {"run_id", nullptr}, {"run_created", false}};
  }
  PROV_ASSIGN(auto run, workflows::startLifecycleFor(engine, *ctx.db, seen.discovery, actor));
  return json{
      {"discovery", toJson(seen.discovery)}, {"run_id", run.run_id}, {"run_created", run.created}};
}

Result<inventory::DiscoveryReport> readLease(const http::FieldReader& in) {
  PROV_ASSIGN(auto action, in.requiredString("action", 8));
  if (action != "add" && action != "old" && action != "del") {
    return common::fail(
        common::invalidArgument("invalid_field", "action must be add, old or del", "action"));
  }
  inventory::DiscoveryReport report;
  report.source = "dhcp";
  report.released = action == "del";
  PROV_ASSIGN(report.bmc_mac, macField(in, "mac"));
  PROV_ASSIGN(auto ip, in.requiredString("ip", 64));
  PROV_ASSIGN(report.bmc_address, ipAddress(ip, "ip"));
  PROV_ASSIGN(auto hostname, in.optionalString("hostname", 253));
  PROV_ASSIGN(auto vendor_class, in.optionalString("vendor_class", 256));
  report.hostname = hostname.value_or("");
  report.vendor_class = vendor_class.value_or("");
  return report;
}

// POST /api/v1/discovery/leases: one DHCP lease event (the dnsmasq and Kea hooks send these).
Result<Response> postLease(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto engine, engineOf(ctx));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto report, readLease(http::FieldReader(body)));
  PROV_ASSIGN(auto answer, recordAndStart(ctx, *engine, report, "dhcp:" + actorOf(req)));
  return http::jsonResponse(202, answer);
}

Result<inventory::DiscoveryReport> readManifestNode(const http::FieldReader& in,
                                                    const std::string& site,
                                                    const std::string& rack) {
  inventory::DiscoveryReport report;
  report.source = "manifest";
  report.site = site;
  report.rack = rack;
  PROV_ASSIGN(auto u, in.requiredInt("u_position", 1, 200));
  report.u_position = static_cast<int>(u);
  PROV_ASSIGN(report.bmc_mac, macField(in, "bmc_mac"));
  PROV_ASSIGN(auto address, in.requiredString("bmc_address", 253));
  PROV_ASSIGN(report.bmc_address, hostOrAddress(address, in.pathOf("bmc_address")));
  PROV_ASSIGN(auto serial, in.optionalString("chassis_serial", 128));
  report.expected_serial = serial.value_or("");
  return report;
}

// Every entry checked before anything is written: a manifest with one bad line changes nothing.
Result<std::vector<inventory::DiscoveryReport>> readManifest(const http::FieldReader& in) {
  PROV_ASSIGN(auto site, requiredText(in, "site", 64));
  PROV_ASSIGN(auto rack, requiredText(in, "rack", 64));
  PROV_ASSIGN(auto nodes, in.arrayOfObjects("nodes"));
  if (nodes.empty() || nodes.size() > kMaxManifestNodes) {
    return common::fail(
        common::invalidArgument("invalid_field", "nodes must list 1 to 1000 BMCs", "nodes"));
  }
  std::vector<inventory::DiscoveryReport> reports;
  std::set<std::string> macs;
  for (const auto& node : nodes) {
    PROV_ASSIGN(auto report, readManifestNode(node, site, rack));
    if (!macs.insert(report.bmc_mac).second) {
      return common::fail(common::invalidArgument("duplicate_mac", "this BMC MAC is listed twice",
                                                  node.pathOf("bmc_mac")));
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

// POST /api/v1/discovery/rack-manifests: the BMCs a rack was delivered with.
Result<Response> postManifest(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto engine, engineOf(ctx));
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto reports, readManifest(http::FieldReader(body)));
  json items = json::array();
  for (const auto& report : reports) {
    PROV_ASSIGN(auto answer, recordAndStart(ctx, *engine, report, "manifest:" + actorOf(req)));
    items.push_back(std::move(answer));
  }
  return http::jsonResponse(
      202, {{"site", reports.front().site}, {"rack", reports.front().rack}, {"items", items}});
}

Result<inventory::NewSweep> readSweep(const http::FieldReader& in, const std::string& actor) {
  inventory::NewSweep sweep;
  PROV_ASSIGN(sweep.cidr, in.requiredString("cidr", 64));
  PROV_ASSIGN(auto port, in.optionalInt("port", 1, 65535));
  PROV_ASSIGN(auto scheme, in.optionalString("scheme", 8));
  PROV_ASSIGN(auto site, in.optionalString("site", 64));
  PROV_ASSIGN(auto rack, in.optionalString("rack", 64));
  sweep.port = static_cast<int>(port.value_or(443));
  sweep.scheme = scheme.value_or("https");
  if (sweep.scheme != "http" && sweep.scheme != "https") {
    return common::fail(
        common::invalidArgument("invalid_field", "scheme must be http or https", "scheme"));
  }
  sweep.site = site.value_or("");
  sweep.rack = rack.value_or("");
  sweep.requested_by = actor;
  return sweep;
}

// POST /api/v1/discovery/sweeps: probes every host of the CIDR in the background.
Result<Response> postSweep(const ApiContext& ctx, const Request& req) {
  PROV_TRY(engineOf(ctx));
  if (!ctx.sweeper) {
    return common::fail(
        common::unavailable("sweeps_disabled", "this service runs without the sweeper"));
  }
  PROV_ASSIGN(auto body, http::parseJsonObject(req.body));
  PROV_ASSIGN(auto sweep, readSweep(http::FieldReader(body), actorOf(req)));
  PROV_ASSIGN(auto addresses, workflows::expandCidr(sweep.cidr));
  PROV_ASSIGN(auto started, ctx.sweeper->start(sweep, addresses));
  return http::jsonResponse(202, toJson(started));
}

Result<Response> getSweep(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  PROV_ASSIGN(auto sweep, inventory::getSweep(*ctx.db, id));
  return http::jsonResponse(200, toJson(sweep));
}

Result<Response> listBmcs(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto page, pageRequest(req));
  PROV_ASSIGN(auto found, inventory::listDiscoveries(*ctx.db, page));
  json items = json::array();
  for (const auto& d : found.items) items.push_back(toJson(d));
  return http::jsonResponse(
      200, {{"items", items},
            {"next_cursor",
             found.next_after ? json(http::encodeCursor(*found.next_after)) : json(nullptr)}});
}

}  // namespace

void addDiscoveryRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute({Method::kPost, "/api/v1/discovery/leases", "discovery.leases",
                   Permission::kDiscover, withContext(ctx, postLease)});
  server.addRoute({Method::kPost, "/api/v1/discovery/rack-manifests", "discovery.manifests",
                   Permission::kDiscover, withContext(ctx, postManifest)});
  server.addRoute({Method::kPost, "/api/v1/discovery/sweeps", "discovery.sweeps.start",
                   Permission::kDiscover, withContext(ctx, postSweep)});
  server.addRoute({Method::kGet, "/api/v1/discovery/sweeps/{id}", "discovery.sweeps.get",
                   Permission::kReadInventory, withContext(ctx, getSweep)});
  server.addRoute({Method::kGet, "/api/v1/discovery/bmcs", "discovery.bmcs",
                   Permission::kReadInventory, withContext(ctx, listBmcs)});
}

}  // namespace provisioner::api
