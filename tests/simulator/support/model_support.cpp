#include "simulator/support/model_support.hpp"

#include <mutex>
#include <optional>
#include <stdexcept>

namespace modeltest {

std::shared_ptr<const sim::Profile> profile(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const sim::Profile>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  auto loaded = sim::loadProfile(name, PROVISIONER_TEST_SOURCE_DIR "/simulator/profiles");
  if (!loaded) throw std::runtime_error("cannot load profile " + name);
  return cache[name] = loaded.value();
}

Bmc::Bmc(const std::string& profileName, std::string id, std::uint64_t seed, bool personalise)
    : clock(1.0), prof(profile(profileName)) {
  model =
      std::make_unique<sim::BmcModel>(prof, std::move(id), seed, kCredentials, clock, personalise);
}

std::string basicAuth(const std::string& user, const std::string& password) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string in = user + ":" + password, out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(alphabet[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(alphabet[(buffer << (6 - bits)) & 0x3f]);
  while (out.size() % 4) out.push_back('=');
  return "Basic " + out;
}

sim::HttpResponse Bmc::send(const std::string& method, const std::string& path,
                            const nlohmann::json& body, sim::HeaderList headers) {
  sim::HttpRequest request;
  request.method = method;
  auto q = path.find('?');
  request.path = path.substr(0, q);
  if (q != std::string::npos) request.query = path.substr(q + 1);
  bool hasAuth = false;
  for (const auto& [name, value] : headers) {
    hasAuth = hasAuth || name == "authorization" || name == "x-auth-token" || name == "noauth";
  }
  if (!hasAuth)
    headers.emplace_back("authorization", basicAuth(kCredentials.username, kCredentials.password));
  request.headers = std::move(headers);
  if (!body.is_null()) request.body = body.dump();
  auto response = model->handle(request);
  if (!response.later) return response;
  std::optional<sim::HttpResponse> answer;
  response.later([&answer](sim::HttpResponse later) { answer = std::move(later); });
  if (!answer) throw std::runtime_error("the deferred answer did not come");
  return *answer;
}

void Bmc::serveImages(std::map<std::string, sim::ImageDownload> images) {
  model->setImageFetcher([images = std::move(images)](
                             const std::string& uri, std::function<void(sim::ImageDownload)> done) {
    auto found = images.find(uri);
    done(found == images.end() ? sim::ImageDownload{} : found->second);
  });
}

sim::ImageDownload downloadedImage(std::string body) {
  return {sim::ImageDownload::Outcome::kDownloaded, std::move(body), {}};
}

sim::ImageDownload packageImage(const std::string& version) {
  return downloadedImage(nlohmann::json{{"version", version}}.dump());
}

sim::ImageDownload failedImage(std::string error) {
  return {sim::ImageDownload::Outcome::kFailed, {}, std::move(error)};
}

sim::HttpResponse Bmc::get(const std::string& path, bool authenticated) {
  sim::HeaderList headers;
  if (!authenticated) headers.emplace_back("noauth", "1");
  return send("GET", path, nullptr, headers);
}

nlohmann::json Bmc::json(const std::string& path) {
  // HPE answers a small fraction of requests with a spurious 401: retry those.
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto response = get(path);
    if (response.status != 401) return bodyOf(response);
  }
  return nullptr;
}

std::string Bmc::etag(const std::string& path) {
  return headerOf(get(path), "ETag");
}

const sim::VendorBehaviour& Bmc::behaviour() const {
  return prof->behaviour;
}

nlohmann::json bodyOf(const sim::HttpResponse& response) {
  return nlohmann::json::parse(response.body, nullptr, false);
}

std::string headerOf(const sim::HttpResponse& response, const std::string& name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return {};
}

nlohmann::json extendedInfo(const sim::HttpResponse& response) {
  auto body = bodyOf(response);
  if (!body.is_object() || !body.contains("error")) return nullptr;
  const auto& info = body["error"]["@Message.ExtendedInfo"];
  return info.is_array() && !info.empty() ? info[0] : nlohmann::json();
}

}  // namespace modeltest
