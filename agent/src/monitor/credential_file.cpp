// The monitor credential on the node's disk: the one secret the resident agent holds.
#include <algorithm>
#include <cctype>

#include "agent/monitor.hpp"
#include "monitor/durable_file.hpp"

namespace agent {
namespace {

constexpr const char* kCredentialFile = "credential";
constexpr const char* kEndpointFile = "service.json";

std::string trimmed(std::string text) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
  return text;
}

}  // namespace

common::Result<std::string> readCredential(const std::filesystem::path& state_dir) {
  auto text = monitor::readWholeFile(state_dir / kCredentialFile);
  if (!text) {
    if (text.error().code == "file_missing") {
      return common::notFound(
          "credential_missing",
          "no monitor credential in " + state_dir.string() + " (the node's burn-in enrolls it)");
    }
    return common::fail(std::move(text).error());
  }
  std::string credential = trimmed(std::move(text).value());
  if (credential.empty()) {
    return common::notFound("credential_missing",
                            (state_dir / kCredentialFile).string() + " is empty");
  }
  return credential;
}

common::Result<void> writeCredential(const std::filesystem::path& state_dir,
                                     const std::string& secret) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    return common::unavailable("state_dir_io",
                               "cannot create " + state_dir.string() + ": " + ec.message());
  }
  return monitor::writeFileDurably(state_dir / kCredentialFile, secret + "\n", 0600);
}

std::filesystem::path monitorEndpointPath(const std::filesystem::path& state_dir) {
  return state_dir / kEndpointFile;
}

common::Result<void> writeMonitorEndpoint(const std::filesystem::path& state_dir,
                                          const MonitorEndpoint& endpoint) {
  const nlohmann::json text = {{"service_url", endpoint.service_url},
                               {"node_id", endpoint.node_id}};
  return monitor::writeFileDurably(monitorEndpointPath(state_dir), text.dump() + "\n", 0644);
}

common::Result<MonitorEndpoint> readMonitorEndpoint(const std::filesystem::path& state_dir) {
  const auto path = monitorEndpointPath(state_dir);
  auto text = monitor::readWholeFile(path);
  if (!text) {
    if (text.error().code != "file_missing") return common::fail(std::move(text).error());
    return common::notFound("endpoint_missing", path.string() + " does not exist");
  }
  auto body = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  auto member = [&](const char* key) {
    auto it = body.is_object() ? body.find(key) : body.end();
    return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  MonitorEndpoint endpoint{member("service_url"), member("node_id")};
  if (endpoint.service_url.empty() || endpoint.node_id.empty()) {
    return common::invalidArgument("invalid_endpoint_file",
                                   path.string() + " needs service_url and node_id", path.string());
  }
  return endpoint;
}

common::Result<void> enrollForMonitor(ServiceClient& client, const std::filesystem::path& state_dir,
                                      const MonitorEndpoint& endpoint) {
  PROV_ASSIGN(auto credential, client.enrollCredential());
  PROV_TRY(writeCredential(state_dir, credential));
  return writeMonitorEndpoint(state_dir, endpoint);
}

}  // namespace agent
