// certificates get | list | public-key: the signed sanitization certificates as files an auditor
// verifies offline, and the key they verify with.
#include <filesystem>
#include <fstream>

#include "provisioner/cli/command.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"
#include "provisioner/cli/url.hpp"

namespace provisioner::cli {
namespace {

using common::Result;
using nlohmann::json;

constexpr const char* kPublicKeyPath = "/api/v1/certificates/public-key";
constexpr const char* kPublicKeyFile = "certificate-public-key.pem";

// Exactly the bytes served: a certificate re-encoded by anyone no longer verifies.
Result<void> writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) {
    return common::fail(common::internalError("cannot write " + path.string()));
  }
  return common::success();
}

Result<std::filesystem::path> outputDir(CommandContext& ctx) {
  const std::filesystem::path dir = ctx.invocation.option("out").value_or(".");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return common::fail(commandUsageError(ctx, "--out " + dir.string() + " is not a directory"));
  }
  return dir;
}

Result<void> getCertificate(CommandContext& ctx) {
  PROV_ASSIGN(auto id, idArgument(ctx, 0));
  PROV_ASSIGN(auto dir, outputDir(ctx));
  const std::string base = "/api/v1/certificates/" + id;
  PROV_ASSIGN(auto document, ctx.api->getText(base, {}, "application/json"));
  PROV_ASSIGN(auto signature,
              ctx.api->getText(base + "/signature", {}, "application/octet-stream"));
  PROV_ASSIGN(auto html, ctx.api->getText(base + "/html", {}, "text/html"));
  PROV_ASSIGN(auto key, ctx.api->getText(kPublicKeyPath, {}, "application/x-pem-file"));
  const std::string stem = "certificate-" + id;
  const auto json_file = dir / (stem + ".json");
  const auto sig_file = dir / (stem + ".sig");
  const auto key_file = dir / kPublicKeyFile;
  PROV_TRY(writeBytes(json_file, document.body));
  PROV_TRY(writeBytes(sig_file, signature.body));
  PROV_TRY(writeBytes(dir / (stem + ".html"), html.body));
  PROV_TRY(writeBytes(key_file, key.body));
  ctx.out << "wrote " << json_file.string() << ", " << sig_file.string() << ", "
          << (dir / (stem + ".html")).string() << " and " << key_file.string() << "\n"
          << "verify offline (compare the key's id with the certificate's key_id yourself, or use "
             "provisioner cert verify):\n"
          << "openssl pkeyutl -verify -pubin -inkey " << key_file.string() << " -rawin -in "
          << json_file.string() << " -sigfile " << sig_file.string() << "\n";
  return common::success();
}

Result<void> listCertificates(CommandContext& ctx) {
  const auto node = ctx.invocation.option("node");
  const auto serial = ctx.invocation.option("serial");
  if (node.has_value() == serial.has_value()) {
    return common::fail(commandUsageError(ctx, "give exactly one of --node ID or --serial S"));
  }
  if (node && !isDecimalId(*node)) {
    return common::fail(commandUsageError(ctx, "--node must be a number, got '" + *node + "'"));
  }
  PROV_ASSIGN(auto reply, node ? ctx.api->getJson("/api/v1/nodes/" + *node + "/certificates")
                               : ctx.api->getJson("/api/v1/certificates", {{"serial", *serial}}));
  if (ctx.json()) {
    printRawJson(ctx.out, reply);
    return common::success();
  }
  Table table({"ID", "DECOMMISSION", "NODE", "ISSUED", "KEY", "SHA256"});
  for (const auto& c : arrayField(reply.json, "items")) {
    table.addRow({text(c, "id"), text(c, "decommission_id"), text(c, "node_id"),
                  text(c, "issued_at"), text(c, "key_id"), text(c, "document_sha256")});
  }
  table.render(ctx.out);
  return common::success();
}

Result<void> publicKey(CommandContext& ctx) {
  PROV_ASSIGN(auto key, ctx.api->getText(kPublicKeyPath, {}, "application/x-pem-file"));
  if (auto out = ctx.invocation.option("out")) {
    PROV_TRY(writeBytes(*out, key.body));
    ctx.out << "wrote " << *out << "\n";
    return common::success();
  }
  ctx.out << key.body;
  return common::success();
}

}  // namespace

std::vector<Command> certificateCommands() {
  return {
      {{.group = "certificates",
        .name = "get",
        .positionals = {"ID"},
        .options = {{.name = "out", .metavar = "DIR"}},
        .summary = "write a certificate's JSON, signature, HTML page and the public key to DIR"},
       getCertificate},
      {{.group = "certificates",
        .name = "list",
        .options = {{.name = "node", .metavar = "ID"}, {.name = "serial", .metavar = "S"}},
        .summary = "list the certificates of a node, or naming a device or chassis serial"},
       listCertificates},
      {{.group = "certificates",
        .name = "public-key",
        .options = {{.name = "out", .metavar = "FILE"}},
        .summary = "print (or write) the PEM public key certificates verify with"},
       publicKey},
  };
}

}  // namespace provisioner::cli
