// image upload | register | list | show | channels | history | promote | rollback: the image
// catalog through the API (signing happens offline: `provisioner image sign`).
#include <filesystem>
#include <fstream>
#include <sstream>

#include "file_digest.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/paging.hpp"
#include "provisioner/cli/table.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kImagesPath = "/api/v1/images";
constexpr const char* kArtifactsPath = "/api/v1/artifacts/";
constexpr const char* kChannelsPath = "/api/v1/channels";

// Uploads one artifact unless the service already stores it (same digest = same bytes).
Result<bool> uploadIfMissing(CommandContext& ctx, const std::string& sha256,
                             const std::string& file) {
  auto existing = ctx.api->getJson(kArtifactsPath + sha256);
  if (existing) return false;
  if (existing.error().code != "artifact_not_found") return common::fail(existing.error());
  PROV_TRY(ctx.api->putFile(kArtifactsPath + sha256, file));
  return true;
}

// The artifacts a signed manifest names, uploaded from DIR/<file_name>.
Result<void> uploadArtifacts(CommandContext& ctx, const json& document, const std::string& dir) {
  for (const auto& artifact : arrayField(objectField(document, "manifest"), "artifacts")) {
    const std::string sha256 = text(artifact, "sha256");
    const std::string name = text(artifact, "file_name");
    if (name.empty() || name.find('/') != std::string::npos) {
      return common::fail(commandUsageError(
          ctx, "artifact " + sha256 + " has no plain file_name to upload it from"));
    }
    const std::string file = (std::filesystem::path(dir) / name).string();
    PROV_ASSIGN(auto uploaded, uploadIfMissing(ctx, sha256, file));
    ctx.err << (uploaded ? "uploaded " : "already stored ") << name << " (" << sha256 << ")\n";
  }
  return common::success();
}

void renderImage(std::ostream& out, const json& image) {
  renderFields(
      out, {{"Name", text(image, "name")},
            {"Version", text(image, "version")},
            {"Description", text(image, "description")},
            {"Kernel args", text(image, "kernel_args")},
            {"Signed by", text(image, "key_id")},
            {"Registered", text(image, "registered_at") + " by " + text(image, "registered_by")}});
  Table artifacts({"KIND", "FILE", "SIZE", "SHA256"});
  for (const auto& a : arrayField(image, "artifacts")) {
    artifacts.addRow({text(a, "kind"), text(a, "file_name"), text(a, "size"), text(a, "sha256")});
  }
  out << "\nArtifacts\n";
  artifacts.render(out);
}

Result<void> uploadArtifact(CommandContext& ctx) {
  const std::string& file = ctx.invocation.positionals.at(0);
  const std::string& sha256 = ctx.invocation.positionals.at(1);
  PROV_ASSIGN(auto uploaded, uploadIfMissing(ctx, sha256, file));
  ctx.out << (uploaded ? "Uploaded " : "Already stored: ") << file << " as " << sha256 << ".\n";
  return common::success();
}

Result<void> registerImage(CommandContext& ctx) {
  PROV_ASSIGN(auto body, readFile(ctx.invocation.positionals.at(0)));
  auto document = json::parse(body, nullptr, false);
  if (!document.is_object()) {
    return common::fail(commandUsageError(ctx, "the signed manifest is not a JSON object"));
  }
  if (auto dir = ctx.invocation.option("artifacts-dir")) {
    PROV_TRY(uploadArtifacts(ctx, document, *dir));
  }
  PROV_ASSIGN(auto reply, ctx.api->postBody(kImagesPath, {}, body, "application/json"));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  ctx.out << (reply.status == 201 ? "Registered " : "Already registered (unchanged): ")
          << sanitize(text(reply.json, "name")) << " " << sanitize(text(reply.json, "version"))
          << ".\n";
  return common::success();
}

Result<void> listImages(CommandContext& ctx) {
  Query query;
  if (auto name = ctx.invocation.option("name")) query.emplace_back("name", *name);
  PROV_ASSIGN(auto listing, fetchListing(ctx, kImagesPath, query));
  if (ctx.json()) {
    printListingJson(ctx.out, listing);
    return common::success();
  }
  Table table({"NAME", "VERSION", "SIGNED BY", "REGISTERED", "BY"});
  for (const auto& i : listing.items) {
    table.addRow({text(i, "name"), text(i, "version"), text(i, "key_id"), text(i, "registered_at"),
                  text(i, "registered_by")});
  }
  table.render(ctx.out);
  noteMorePages(ctx, listing);
  return common::success();
}

Result<void> showImage(CommandContext& ctx) {
  const auto& p = ctx.invocation.positionals;
  PROV_ASSIGN(auto reply,
              ctx.api->getJson(std::string(kImagesPath) + "/" + p.at(0) + "/" + p.at(1)));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  renderImage(ctx.out, reply.json);
  return common::success();
}

void renderChannel(std::ostream& out, const json& channel) {
  const auto& image = objectField(channel, "image");
  out << sanitize(text(channel, "name")) << " -> " << sanitize(text(image, "name")) << " "
      << sanitize(text(image, "version")) << "\n\n";
  Table history({"AT", "ACTION", "FROM", "TO", "ACTOR", "REASON"});
  for (const auto& e : arrayField(channel, "history")) {
    const auto& from = objectField(e, "from");
    history.addRow({text(e, "at"), text(e, "action"), text(from, "version"),
                    text(objectField(e, "to"), "version"), text(e, "actor"), text(e, "reason")});
  }
  history.render(out);
}

Result<void> showChannelReply(CommandContext& ctx, const ApiReply& reply) {
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
  } else {
    renderChannel(ctx.out, reply.json);
  }
  return common::success();
}

Result<void> listChannels(CommandContext& ctx) {
  PROV_ASSIGN(auto reply, ctx.api->getJson(kChannelsPath));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"CHANNEL", "IMAGE", "VERSION", "UPDATED", "BY"});
  for (const auto& c : arrayField(reply.json, "items")) {
    const auto& image = objectField(c, "image");
    table.addRow({text(c, "name"), text(image, "name"), text(image, "version"),
                  text(c, "updated_at"), text(c, "updated_by")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> channelHistory(CommandContext& ctx) {
  PROV_ASSIGN(auto reply, ctx.api->getJson(std::string(kChannelsPath) + "/" +
                                           ctx.invocation.positionals.at(0)));
  return showChannelReply(ctx, reply);
}

Result<void> promote(CommandContext& ctx) {
  const auto& p = ctx.invocation.positionals;
  json body = {{"image", p.at(1)}, {"version", p.at(2)}};
  if (auto reason = ctx.invocation.option("reason")) body["reason"] = *reason;
  PROV_ASSIGN(auto reply,
              ctx.api->postJson(std::string(kChannelsPath) + "/" + p.at(0) + "/promote", body));
  return showChannelReply(ctx, reply);
}

Result<void> rollback(CommandContext& ctx) {
  json body = json::object();
  if (auto to = ctx.invocation.option("to")) body["version"] = *to;
  if (auto reason = ctx.invocation.option("reason")) body["reason"] = *reason;
  PROV_ASSIGN(auto reply, ctx.api->postJson(std::string(kChannelsPath) + "/" +
                                                ctx.invocation.positionals.at(0) + "/rollback",
                                            body));
  return showChannelReply(ctx, reply);
}

}  // namespace

std::vector<Command> imageCommands() {
  return {
      {{.group = "image",
        .name = "upload",
        .positionals = {"FILE", "SHA256"},
        .summary = "upload one artifact into the service's content-addressed store"},
       uploadArtifact},
      {{.group = "image",
        .name = "register",
        .positionals = {"SIGNED_MANIFEST.json"},
        .options = {{.name = "artifacts-dir", .metavar = "DIR"}},
        .summary = "register a signed image (uploading its artifacts from DIR first)"},
       registerImage},
      {{.group = "image",
        .name = "list",
        .options = {{.name = "name", .metavar = "N"},
                    {.name = "limit", .metavar = "N"},
                    {.name = "all", .takesValue = false}},
        .summary = "list registered images"},
       listImages},
      {{.group = "image",
        .name = "show",
        .positionals = {"NAME", "VERSION"},
        .summary = "show one image and its artifacts"},
       showImage},
      {{.group = "image", .name = "channels", .summary = "list channels and their images"},
       listChannels},
      {{.group = "image",
        .name = "history",
        .positionals = {"CHANNEL"},
        .summary = "show a channel's image and its promote/rollback history"},
       channelHistory},
      {{.group = "image",
        .name = "promote",
        .positionals = {"CHANNEL", "IMAGE", "VERSION"},
        .options = {{.name = "reason", .metavar = "TEXT"}},
        .summary = "point a channel at an image version"},
       promote},
      {{.group = "image",
        .name = "rollback",
        .positionals = {"CHANNEL"},
        .options = {{.name = "to", .metavar = "VERSION"}, {.name = "reason", .metavar = "TEXT"}},
        .summary = "point a channel back at its previous image (or --to a version it had)"},
       rollback},
  };
}

}  // namespace provisioner::cli
