// Health, readiness, metrics and the OpenAPI description: public, no token.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "inventory/migrations.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

Result<Response> healthz(const ApiContext&, const Request&) {
  return http::jsonResponse(200, {{"status", "ok"}});
}

Result<Response> readyz(const ApiContext& ctx, const Request&) {
  if (auto ping = ctx.db->ping(); !ping) {
    return common::fail(
        common::unavailable("not_ready", "database unreachable: " + ping.error().message)
            .withField("database"));
  }
  auto current = inventory::migrationsCurrent(*ctx.db, ctx.migrations);
  if (!current || !*current) {
    return common::fail(common::unavailable("not_ready", "database migrations are not current")
                            .withField("migrations"));
  }
  return http::jsonResponse(200, {{"status", "ready"}});
}

Result<Response> openapi(const ApiContext& ctx, const Request&) {
  std::ifstream in(ctx.openapi_path);
  if (!in) return common::fail(common::internalError("cannot read " + ctx.openapi_path));
  std::stringstream ss;
  ss << in.rdbuf();
  Response r;
  r.content_type = "application/yaml";
  r.body = ss.str();
  return r;
}

// Pool gauges for /metrics, read at scrape time.
void addPoolCollector(const ContextPtr& ctx) {
  ctx->metrics->addCollector([db = ctx->db](std::string& out) {
    auto s = db->stats();
    out +=
        "# HELP provisioner_db_pool_connections Open database connections.\n"
        "# TYPE provisioner_db_pool_connections gauge\n"
        "provisioner_db_pool_connections " +
        std::to_string(s.size) + "\n" +
        "# HELP provisioner_db_pool_in_use Database connections lent out.\n"
        "# TYPE provisioner_db_pool_in_use gauge\n"
        "provisioner_db_pool_in_use " +
        std::to_string(s.in_use) + "\n" +
        "# HELP provisioner_db_pool_waiting Requests waiting for a database connection.\n"
        "# TYPE provisioner_db_pool_waiting gauge\n"
        "provisioner_db_pool_waiting " +
        std::to_string(s.waiting) + "\n" +
        "# HELP provisioner_db_pool_acquired_total Connections handed out.\n"
        "# TYPE provisioner_db_pool_acquired_total counter\n"
        "provisioner_db_pool_acquired_total " +
        std::to_string(s.acquired_total) + "\n" +
        "# HELP provisioner_db_errors_total Statements that failed with a database error.\n"
        "# TYPE provisioner_db_errors_total counter\n"
        "provisioner_db_errors_total " +
        std::to_string(s.errors_total) + "\n";
  });
}

}  // namespace

void addServiceRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  auto bind = [&ctx](ContextHandler fn) { return withContext(ctx, fn); };
  server.addRoute({Method::kGet, "/healthz", "healthz", Permission::kPublic, bind(healthz)});
  server.addRoute({Method::kGet, "/readyz", "readyz", Permission::kPublic, bind(readyz)});
  server.addRoute(http::metricsRoute(ctx->metrics));
  server.addRoute(
      {Method::kGet, "/api/v1/openapi.yaml", "openapi", Permission::kPublic, bind(openapi)});
  addPoolCollector(ctx);
}

}  // namespace provisioner::api
