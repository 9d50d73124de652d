// The BMCs' image downloads (SimpleUpdate pulls its ImageURI, as a real BMC does): each on a
// thread of its own, off the engine's loop, over http or https (self-signed certificates are
// accepted, as BMCs are usually told to). Owned by the Fleet, stopped before its nodes go.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "simulator/bmc_model.hpp"

namespace sim::fleet {

// One GET of `uri`: kDownloaded with the body (at most `limit` bytes kept, then cut), kNotServed
// when nothing answers there (connection refused or timed out, no such host, HTTP 404),
// kFailed otherwise (another HTTP status, TLS or read failure), `error` saying why.
ImageDownload downloadImage(const std::string& uri, std::size_t limit = 65536);

class ImageFetchers {
 public:
  ImageFetchers() = default;
  ~ImageFetchers();
  ImageFetchers(const ImageFetchers&) = delete;
  ImageFetchers& operator=(const ImageFetchers&) = delete;

  // Downloads on a new thread and hands the outcome to `done` there. After stop(), `done` is
  // called at once with a failure.
  void fetch(const std::string& uri, std::function<void(ImageDownload)> done);
  // Waits for every download to finish; later fetches fail at once. Idempotent.
  void stop();

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reapFinished();

  std::mutex mutex_;
  bool stopping_ = false;
  std::vector<Worker> workers_;
};

}  // namespace sim::fleet
