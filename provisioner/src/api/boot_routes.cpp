// The boot service nodes reach without an API token: GET /boot/ipxe?mac=... renders the node's
// iPXE script, GET /boot/artifacts/{sha256} serves checked artifacts (with Range). A node always
// gets a script: unknown or not-yet-ready nodes wait and retry, nodes with nothing to do boot
// their local disk. Failures are logged, never answered with a 5xx that would strand the node.
#include <spdlog/spdlog.h>

#include "agent_auth.hpp"
#include "common/mac_address.hpp"
#include "images/artifact_store.hpp"
#include "images/ipxe.hpp"
#include "inventory/agent_tasks.hpp"
#include "inventory/boot_image.hpp"
#include "inventory/images.hpp"
#include "inventory/nodes.hpp"
#include "routes.hpp"

namespace provisioner::api {
namespace {

using common::Result;
using http::Request;
using http::Response;

Response script(std::string text) {
  Response response;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(text);
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

std::string retryUrl(const ApiContext& ctx, const std::string& mac) {
  return ctx.boot.public_url + "/boot/ipxe?mac=" + (mac.empty() ? "${net0/mac}" : mac);
}

std::string artifactUrl(const ApiContext& ctx, const std::string& sha256) {
  if (!ctx.boot.mirror_url.empty()) return ctx.boot.mirror_url + "/sha256/" + sha256;
  return ctx.boot.public_url + "/boot/artifacts/" + sha256;
}

const inventory::ImageArtifactRecord* artifactOf(const inventory::ImageRecord& image,
                                                 std::string_view kind) {
  for (const auto& a : image.artifacts) {
    if (a.kind == kind) return &a;
  }
  return nullptr;
}

// Why a node cannot boot its image yet; it retries until an operator fixes it.
struct NotReady {
  std::string reason;
};

// The channel a task boots from: a wipe task the catalog's wipe channel (the same for every
// model: the wipe image carries no tenant software), any other the node's hardware profile's.
Result<std::string> channelFor(const ApiContext& ctx, const inventory::Node& node,
                               const inventory::AgentTask& task, NotReady& why) {
  if (task.kind == "wipe") return ctx.boot.wipe_channel;
  PROV_ASSIGN(auto profile, inventory::profileForModel(*ctx.db, node.hardware_model));
  if (!profile) {
    why.reason = "no hardware profile for model '" + node.hardware_model + "'";
    return common::fail(common::notFound("profile_not_found", why.reason));
  }
  return profile->channel;
}

// The image the task's channel points at now.
Result<inventory::ImageRecord> imageFor(const ApiContext& ctx, const inventory::Node& node,
                                        const inventory::AgentTask& task, NotReady& why) {
  PROV_ASSIGN(auto channel_name, channelFor(ctx, node, task, why));
  auto channel = inventory::getChannel(*ctx.db, channel_name);
  if (!channel) {
    why.reason = "channel '" + channel_name + "' points at no image";
    return common::fail(std::move(channel).error());
  }
  return inventory::getImage(*ctx.db, channel->image.name, channel->image.version);
}

// The image this boot serves: the one the task names (an image campaign), else its channel's
// (channelFor). Either is a registered image, whose manifest's signature and digests were checked
// when it was registered.
Result<inventory::ImageRecord> imageForBoot(const ApiContext& ctx, const inventory::Node& node,
                                            const inventory::AgentTask& task, NotReady& why) {
  const auto named = inventory::bootImageOf(task);
  if (!named) return imageFor(ctx, node, task, why);
  auto image = inventory::getImage(*ctx.db, named->name, named->version);
  if (!image && image.error().code == "image_not_found") {
    why.reason = "task " + std::to_string(task.id) + " names image " + named->name + " " +
                 named->version + ", which is not registered";
  }
  return image;
}

Result<std::string> bootScriptFor(const ApiContext& ctx, const inventory::Node& node,
                                  const inventory::AgentTask& task,
                                  const inventory::ImageRecord& image) {
  const auto* kernel = artifactOf(image, "kernel");
  const auto* initrd = artifactOf(image, "initrd");
  if (kernel == nullptr || initrd == nullptr) {
    return common::fail(common::internalError("registered image lacks kernel or initrd"));
  }
  PROV_ASSIGN(auto token,
              mintAgentToken(*ctx.db, node.id, task.id, kBootToken, ctx.boot.boot_token_ttl_s));
  images::BootScriptSpec spec;
  spec.label = "node " + std::to_string(node.id) + ": " + image.name + " " + image.version;
  spec.kernel_url = artifactUrl(ctx, kernel->sha256);
  spec.kernel_sha256 = kernel->sha256;
  spec.initrd_url = artifactUrl(ctx, initrd->sha256);
  spec.initrd_sha256 = initrd->sha256;
  spec.image_kernel_args = image.kernel_args;
  spec.retry_seconds = ctx.boot.retry_seconds;
  spec.kernel_params = {{"provisioner.url", ctx.boot.public_url},
                        {"provisioner.node", std::to_string(node.id)},
                        {"provisioner.task", std::to_string(task.id)},
                        {"provisioner.token", token},
                        {"provisioner.image", image.name + "@" + image.version}};
  if (const auto* rootfs = artifactOf(image, "rootfs")) {
    spec.kernel_params.emplace_back("provisioner.rootfs_url", artifactUrl(ctx, rootfs->sha256));
    spec.kernel_params.emplace_back("provisioner.rootfs_sha256", rootfs->sha256);
  }
  return images::renderBootScript(spec);
}

// The decision for one MAC; errors become retry scripts in ipxeScript().
Result<Response> decide(const ApiContext& ctx, const std::string& mac) {
  PROV_ASSIGN(auto node_id, inventory::nodeForBootMac(*ctx.db, mac));
  if (!node_id) {
    spdlog::info("boot request from unknown MAC {}", mac);
    return script(images::renderRetryScript("MAC " + mac + " is not known to the provisioner",
                                            ctx.boot.retry_seconds, retryUrl(ctx, mac)));
  }
  PROV_ASSIGN(auto task, inventory::openTaskForNode(*ctx.db, *node_id));
  if (!task) {
    return script(images::renderLocalBootScript("node " + std::to_string(*node_id) +
                                                " has no network boot due"));
  }
  PROV_ASSIGN(auto node, inventory::getNode(*ctx.db, *node_id));
  NotReady why;
  auto image = imageForBoot(ctx, node, *task, why);
  if (!image) {
    const std::string reason = why.reason.empty() ? image.error().message : why.reason;
    spdlog::warn("node {} is due to boot but has no image: {}", node.id, reason);
    return script(images::renderRetryScript(reason, ctx.boot.retry_seconds, retryUrl(ctx, mac)));
  }
  PROV_ASSIGN(auto text, bootScriptFor(ctx, node, *task, *image));
  return script(std::move(text));
}

Result<Response> ipxeScript(const ApiContext& ctx, const Request& req) {
  auto mac = common::normalizeMac(req.query("mac").value_or(""));
  if (!mac) {
    return script(images::renderRetryScript("the boot request carried no valid MAC",
                                            ctx.boot.retry_seconds, retryUrl(ctx, "")));
  }
  auto decided = decide(ctx, *mac);
  if (decided) return decided;
  spdlog::error("boot script for {} failed, node told to retry: {} [{}]", *mac,
                decided.error().message, decided.error().code);
  return script(images::renderRetryScript("the provisioner could not answer; retrying",
                                          ctx.boot.retry_seconds, retryUrl(ctx, *mac)));
}

Result<Response> serveArtifact(const ApiContext& ctx, const Request& req) {
  const std::string& digest = req.pathParam("sha256");
  if (!images::isSha256Hex(digest)) {
    return common::fail(common::notFound("artifact_not_found", "no such artifact"));
  }
  if (!ctx.artifacts) {
    return common::fail(common::unavailable("image_store_unavailable", "no artifact store"));
  }
  PROV_ASSIGN(auto stored, ctx.artifacts->openVerified(digest));
  Response response;
  response.content_type = "application/octet-stream";
  response.file_path = stored.path.string();
  response.file_size = stored.size;
  response.headers.emplace_back("ETag", "\"" + digest + "\"");
  response.headers.emplace_back("Cache-Control", "public, max-age=31536000, immutable");
  return response;
}

}  // namespace

void addBootRoutes(http::ApiServer& server, const ContextPtr& ctx) {
  using http::Method;
  using http::Permission;
  server.addRoute(
      {Method::kGet, "/boot/ipxe", "boot.ipxe", Permission::kPublic, withContext(ctx, ipxeScript)});
  server.addRoute({Method::kGet, "/boot/artifacts/{sha256}", "boot.artifact", Permission::kPublic,
                   withContext(ctx, serveArtifact)});
}

}  // namespace provisioner::api
