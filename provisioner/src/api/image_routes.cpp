// The image catalog: artifact uploads into the content-addressed store, and signed image
// registration (signature, then every artifact's size and digest, then the immutable record).
#include <nlohmann/json.hpp>

#include "catalog_views.hpp"
#include "images/artifact_store.hpp"
#include "images/signing.hpp"
#include "input.hpp"
#include "inventory/images.hpp"
#include "provisioner/api/key_ring.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

Result<images::ArtifactStore*> storeOf(const ApiContext& ctx) {
  if (!ctx.artifacts) {
    return common::fail(common::unavailable("image_store_unavailable",
                                            "this service has no artifact store configured"));
  }
  return ctx.artifacts.get();
}

Result<std::string> digestParam(const Request& req) {
  const std::string& digest = req.pathParam("sha256");
  if (!images::isSha256Hex(digest)) {
    return common::fail(common::invalidArgument(
        "invalid_field", "sha256 must be 64 lower-case hex digits", "sha256"));
  }
  return digest;
}

nlohmann::json storedJson(const std::string& digest, const images::StoredArtifact& stored) {
  return {{"sha256", digest}, {"size", stored.size}};
}

// PUT /api/v1/artifacts/{sha256}: the body is streamed to disk and kept only if it hashes to the
// name it was uploaded under. An artifact already stored is not uploaded again.
Result<Response> uploadArtifact(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto digest, digestParam(req));
  PROV_ASSIGN(auto* store, storeOf(ctx));
  if (auto existing = store->openVerified(digest)) {
    return http::jsonResponse(200, storedJson(digest, *existing));
  }
  PROV_ASSIGN(auto upload, store->beginUpload(digest));
  common::Error write_error;
  const bool complete = req.read_body([&](std::string_view chunk) {
    auto written = upload->write(chunk);
    if (written) return true;
    write_error = std::move(written).error();
    return false;
  });
  if (!write_error.code.empty()) return common::fail(std::move(write_error));
  if (!complete) {
    return common::fail(common::invalidArgument("incomplete_body",
                                                "the upload ended before its body was complete"));
  }
  PROV_ASSIGN(auto stored, upload->commit());
  return http::jsonResponse(201, storedJson(digest, stored));
}

Result<Response> getArtifact(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto digest, digestParam(req));
  PROV_ASSIGN(auto* store, storeOf(ctx));
  PROV_ASSIGN(auto stored, store->openVerified(digest));
  return http::jsonResponse(200, storedJson(digest, stored));
}

inventory::ImageRecord recordOf(const images::SignedManifest& signed_manifest) {
  const auto& m = signed_manifest.manifest;
  inventory::ImageRecord record;
  record.name = m.name;
  record.version = m.version;
  record.description = m.description;
  record.kernel_args = m.kernel_args;
  for (const auto& a : m.artifacts) {
    record.artifacts.push_back({std::string(images::toString(a.kind)), a.sha256,
                                static_cast<std::int64_t>(a.size), a.file_name});
  }
  record.manifest_json = images::toJson(signed_manifest).dump();
  record.key_id = signed_manifest.signature ? signed_manifest.signature->key_id : "";
  return record;
}

// POST /api/v1/images: the checks run in order and the first failure names itself.
Result<Response> registerImage(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto* store, storeOf(ctx));
  PROV_ASSIGN(auto signed_manifest, images::parseSignedManifest(std::string_view(req.body)));
  static const images::TrustedKeys kNoKeys;
  const auto keys = ctx.trusted_keys ? ctx.trusted_keys->current() : nullptr;
  PROV_TRY(images::verifySignature(signed_manifest, keys ? *keys : kNoKeys));
  for (const auto& artifact : signed_manifest.manifest.artifacts) {
    PROV_TRY(store->verify(artifact));
  }
  PROV_ASSIGN(auto registration,
              inventory::registerImage(*ctx.db, recordOf(signed_manifest), actorOf(req)));
  return http::jsonResponse(registration.created ? 201 : 200, toJson(registration.image));
}

Result<Response> listImages(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto page, pageRequest(req));
  PROV_ASSIGN(auto images, inventory::listImages(*ctx.db, req.query("name").value_or(""), page));
  return http::jsonResponse(200, pageJson(images));
}

Result<Response> getImage(const ApiContext& ctx, const Request& req) {
  PROV_ASSIGN(auto image,
              inventory::getImage(*ctx.db, req.pathParam("name"), req.pathParam("version")));
  auto body = toJson(image);
  body["manifest"] = nlohmann::json::parse(image.manifest_json, nullptr, false);
  return http::jsonResponse(200, body);
}

}  // namespace

void addImageRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  http::RouteSpec upload{Method::kPut, "/api/v1/artifacts/{sha256}", "artifacts.upload",
                         Permission::kWriteImages, withContext(ctx, uploadArtifact)};
  upload.accepts = {"application/octet-stream"};
  upload.streams_body = true;
  server.addRoute(std::move(upload));
  server.addRoute({Method::kGet, "/api/v1/artifacts/{sha256}", "artifacts.get",
                   Permission::kReadInventory, withContext(ctx, getArtifact)});
  server.addRoute({Method::kPost, "/api/v1/images", "images.register", Permission::kWriteImages,
                   withContext(ctx, registerImage)});
  server.addRoute({Method::kGet, "/api/v1/images", "images.list", Permission::kReadInventory,
                   withContext(ctx, listImages)});
  server.addRoute({Method::kGet, "/api/v1/images/{name}/{version}", "images.get",
                   Permission::kReadInventory, withContext(ctx, getImage)});
}

}  // namespace provisioner::api
