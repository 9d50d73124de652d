// Sanitization certificates (issue 12 section 5): the signed JSON document exactly as stored, its
// detached 64-byte Ed25519 signature, the auditors' HTML page, listings by node and by device
// serial, and the public key anyone verifies them with (no token needed: an auditor outside the
// company has none).
#include <nlohmann/json.hpp>

#include "decommission_views.hpp"
#include "input.hpp"
#include "inventory/decommissions.hpp"
#include "inventory/nodes.hpp"
#include "routes.hpp"
#include "workflows/decommission/certificate.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;
using nlohmann::json;

Response bytesResponse(std::string content_type, std::string body, const std::string& filename) {
  Response r;
  r.status = 200;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  r.headers.emplace_back("Content-Disposition", "inline; filename=\"" + filename + "\"");
  return r;
}

std::string fileStem(inventory::Id id) {
  return "certificate-" + std::to_string(id);
}

Result<inventory::Certificate> certificateOf(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto id, idParam(req, "id"));
  return inventory::getCertificate(*ctx.db, id);
}

// The stored bytes, never re-serialised: the signature is over exactly these.
Result<Response> getDocument(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto c, certificateOf(ctx, req));
  return bytesResponse("application/json", c.document, fileStem(c.id) + ".json");
}

Result<Response> getSignature(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto c, certificateOf(ctx, req));
  return bytesResponse("application/octet-stream", c.signature, fileStem(c.id) + ".sig");
}

Result<Response> getHtml(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto c, certificateOf(ctx, req));
  PROV_ASSIGN(auto html, workflows::decommission::certificateHtml(c.document));
  return bytesResponse("text/html; charset=utf-8", std::move(html), fileStem(c.id) + ".html");
}

Response listResponse(const std::vector<inventory::Certificate>& certificates, json head) {
  json items = json::array();
  for (const auto& c : certificates) items.push_back(certificateSummaryJson(c));
  head["items"] = items;
  return http::jsonResponse(200, head);
}

Result<Response> listForNode(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto node_id, idParam(req, "id"));
  PROV_TRY(inventory::getNode(*ctx.db, node_id));
  PROV_ASSIGN(auto list, inventory::listCertificatesForNode(*ctx.db, node_id));
  return listResponse(list, {{"node_id", node_id}});
}

Result<Response> listForSerial(const ApiContext& ctx, const Request& req) {
  const std::string serial = trimmed(req.query("serial").value_or(""));
  if (serial.empty()) {
    return common::fail(common::invalidArgument(
        "missing_field", "query parameter serial (a chassis or device serial) is required",
        "serial"));
  }
  PROV_ASSIGN(auto list, inventory::listCertificatesForSerial(*ctx.db, serial));
  return listResponse(list, {{"serial", serial}});
}

Result<Response> getPublicKey(const ApiContext& ctx, const Request&) {
  if (ctx.certificate_public_key_pem.empty()) {
    return common::fail(common::unavailable("certificate_key_unavailable",
                                            "this service was started without a certificate key"));
  }
  return bytesResponse("application/x-pem-file", ctx.certificate_public_key_pem,
                       "certificate-public-key.pem");
}

}  // namespace

void addCertificateRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  const std::string base = "/api/v1/certificates";
  // A literal segment beats a parameter in the router, so "public-key" is never taken for an id.
  server.addRoute({Method::kGet, base + "/public-key", "certificates.public_key",
                   Permission::kPublic, withContext(ctx, getPublicKey)});
  server.addRoute({Method::kGet, base, "certificates.list", Permission::kReadInventory,
                   withContext(ctx, listForSerial)});
  server.addRoute({Method::kGet, base + "/{id}", "certificates.get", Permission::kReadInventory,
                   withContext(ctx, getDocument)});
  server.addRoute({Method::kGet, base + "/{id}/signature", "certificates.signature",
                   Permission::kReadInventory, withContext(ctx, getSignature)});
  server.addRoute({Method::kGet, base + "/{id}/html", "certificates.html",
                   Permission::kReadInventory, withContext(ctx, getHtml)});
  server.addRoute({Method::kGet, "/api/v1/nodes/{id}/certificates", "nodes.certificates",
                   Permission::kReadInventory, withContext(ctx, listForNode)});
}

}  // namespace provisioner::api
