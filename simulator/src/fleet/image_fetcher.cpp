#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT  // https:// image URIs
#endif
#include "fleet/image_fetcher.hpp"

#include <httplib.h>

#include <cctype>

namespace sim::fleet {
namespace {

constexpr int kConnectTimeoutSeconds = 3;
constexpr int kReadTimeoutSeconds = 10;

ImageDownload notServed(std::string why) {
  return ImageDownload{ImageDownload::Outcome::kNotServed, {}, std::move(why)};
}

ImageDownload failed(std::string why) {
  return ImageDownload{ImageDownload::Outcome::kFailed, {}, std::move(why)};
}

// RFC 2606 names never resolve: no lookup (which can be slow where no resolver answers).
bool reservedName(std::string host) {
  if (auto at = host.rfind('@'); at != std::string::npos) host.erase(0, at + 1);
  if (auto colon = host.rfind(':');
      colon != std::string::npos && host.find(']') == std::string::npos)
    host.resize(colon);
  for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* tld : {".example", ".invalid", ".test"}) {
    std::string suffix(tld);
    if (host == suffix.substr(1) || host.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace

ImageDownload downloadImage(const std::string& uri, std::size_t limit) {
  const bool http = uri.rfind("http://", 0) == 0, https = uri.rfind("https://", 0) == 0;
  if (!http && !https) return failed("not an http(s) URL");
  const std::size_t hostStart = http ? 7 : 8;
  const std::size_t slash = uri.find('/', hostStart);
  if (slash == hostStart) return failed("no host in the URL");
  auto origin = slash == std::string::npos ? uri : uri.substr(0, slash);
  auto target = slash == std::string::npos ? std::string("/") : uri.substr(slash);
  if (auto hash = target.find('#'); hash != std::string::npos) target.resize(hash);
  if (reservedName(origin.substr(hostStart)))
    return notServed("a reserved name that never resolves");

  httplib::Client client(origin);
  client.set_connection_timeout(kConnectTimeoutSeconds);
  client.set_read_timeout(kReadTimeoutSeconds);
  client.set_follow_location(true);
  client.enable_server_certificate_verification(false);  // BMCs take self-signed services
  int status = 0;
  bool cut = false;
  ImageDownload image{ImageDownload::Outcome::kDownloaded, {}, {}};
  auto result = client.Get(
      target,
      [&status](const httplib::Response& response) {
        status = response.status;
        return response.status == 200;
      },
      [&](const char* data, std::size_t size) {
        if (image.body.size() + size > limit) {
          image.body.append(data, limit - image.body.size());
          cut = true;
          return false;
        }
        image.body.append(data, size);
        return true;
      });
  if (cut) return image;  // more than any package: the model says it is none
  if (status == 404) return notServed("HTTP 404");
  if (status != 0 && status != 200) return failed("HTTP " + std::to_string(status));
  if (!result) {
    auto error = result.error();
    auto why = httplib::to_string(error);
    bool nobody = error == httplib::Error::Connection || error == httplib::Error::ConnectionTimeout;
    return nobody ? notServed(why) : failed(why);
  }
  return image;
}

ImageFetchers::~ImageFetchers() {
  stop();
}

void ImageFetchers::reapFinished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      it->thread.join();  // its function has returned: this does not wait
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void ImageFetchers::fetch(const std::string& uri, std::function<void(ImageDownload)> done) {
  std::unique_lock lock(mutex_);
  if (stopping_) {
    lock.unlock();
    done(failed("the simulator is stopping"));
    return;
  }
  reapFinished();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([uri, done = std::move(done), finished] {
    done(downloadImage(uri));
    finished->store(true);
  });
  workers_.push_back(Worker{std::move(thread), std::move(finished)});
}

void ImageFetchers::stop() {
  std::vector<Worker> workers;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    workers.swap(workers_);
  }
  for (Worker& worker : workers) worker.thread.join();
}

}  // namespace sim::fleet
