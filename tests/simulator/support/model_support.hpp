// Helpers for the BMC model tests: profiles loaded once per process, requests built in one line.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "simulator/bmc_model.hpp"
#include "simulator/profile.hpp"

namespace modeltest {

inline const sim::BmcCredentials kCredentials{"admin", "s3cret-Pass"};

std::shared_ptr<const sim::Profile> profile(const std::string& name);

struct Bmc {
  explicit Bmc(const std::string& profileName, std::string id = "r01-n01", std::uint64_t seed = 42,
               bool personalise = true);
  sim::SimClock clock;
  std::unique_ptr<sim::BmcModel> model;

  // SimpleUpdate with an http(s) ImageURI then "downloads" from `images` (URI -> what the
  // download gave; absent URIs are not served), at once and without I/O; send() hands back the
  // answer that follows the download.
  void serveImages(std::map<std::string, sim::ImageDownload> images);
  // Authenticated with Basic auth unless `authenticated` is false.
  sim::HttpResponse get(const std::string& path, bool authenticated = true);
  sim::HttpResponse send(const std::string& method, const std::string& path,
                         const nlohmann::json& body, sim::HeaderList headers = {});
  nlohmann::json json(const std::string& path);
  std::string etag(const std::string& path);
  const sim::VendorBehaviour& behaviour() const;
  std::shared_ptr<const sim::Profile> prof;
};

// A download that gave this body (a package: packageImage("24.10.1")).
sim::ImageDownload downloadedImage(std::string body);
sim::ImageDownload packageImage(const std::string& version);
sim::ImageDownload failedImage(std::string error);

nlohmann::json bodyOf(const sim::HttpResponse& response);
std::string headerOf(const sim::HttpResponse& response, const std::string& name);
// The first @Message.ExtendedInfo entry of an error response.
nlohmann::json extendedInfo(const sim::HttpResponse& response);
std::string basicAuth(const std::string& user, const std::string& password);

}  // namespace modeltest
