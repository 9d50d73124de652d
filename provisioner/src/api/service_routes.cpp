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

// Pool figures for /metrics, read at scrape time.
void addPoolCollector(const ContextPtr& ctx) {
  ctx->metrics->addCollector([db = ctx->db](std::string& out) {
    const auto s = db->stats();
    auto gauge = [&out](std::string_view name, std::string_view help, double value) {
      http::appendGauge(out, name, help, value);
    };
    // Totals since start: counters (promtool refuses a "_total" gauge).
    auto counter = [&out](std::string_view name, std::string_view help, double value) {
      http::appendCounter(out, name, help, value);
    };
    gauge("provisioner_db_pool_connections", "Open database connections.",
          static_cast<double>(s.size));
    gauge("provisioner_db_pool_in_use", "Database connections lent out.",
          static_cast<double>(s.in_use));
    gauge("provisioner_db_pool_waiting", "Requests waiting for a database connection.",
          static_cast<double>(s.waiting));
    counter("provisioner_db_pool_acquired_total", "Connections handed out since start.",
            static_cast<double>(s.acquired_total));
    counter("provisioner_db_errors_total", "Statements that failed with a database error.",
            static_cast<double>(s.errors_total));
    counter("provisioner_db_round_trips_total",
            "Requests sent to PostgreSQL and waited for (statements, PREPARE, BEGIN, COMMIT).",
            static_cast<double>(s.round_trips_total));
  });
}

}  // namespace

void addServiceRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute(
      {Method::kGet, "/healthz", "healthz", Permission::kPublic, withContext(ctx, healthz)});
  server.addRoute(
      {Method::kGet, "/readyz", "readyz", Permission::kPublic, withContext(ctx, readyz)});
  server.addRoute(http::metricsRoute(ctx->metrics));
  server.addRoute({Method::kGet, "/api/v1/openapi.yaml", "openapi", Permission::kPublic,
                   withContext(ctx, openapi)});
  addPoolCollector(ctx);
}

}  // namespace provisioner::api
