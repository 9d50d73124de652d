// A real HTTP scheduler for the tests of runs that drain and resume nodes through the scheduler
// hook: it records every request and says the node is idle at once.
#pragma once

#include <httplib.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace engine_test {

struct Scheduler {
  httplib::Server server;
  std::mutex mutex;
  std::vector<nlohmann::json> requests;
  std::thread serving;
  int port = 0;

  Scheduler() {
    server.Post("/drain", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(mutex);
        requests.push_back(nlohmann::json::parse(req.body, nullptr, false));
      }
      res.set_content(nlohmann::json{{"idle", true}}.dump(), "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    serving = std::thread([this] { server.listen_after_bind(); });
  }
  ~Scheduler() {
    server.stop();
    serving.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/drain"; }
  std::vector<nlohmann::json> seen() {
    std::lock_guard lock(mutex);
    return requests;
  }
  // The requests about one node: "drain" / "resume", in order.
  std::vector<std::string> actionsFor(const std::string& node_serial) {
    std::vector<std::string> out;
    for (const auto& r : seen()) {
      if (r["node"]["serial"] == node_serial) out.push_back(r["action"].get<std::string>());
    }
    return out;
  }
};

}  // namespace engine_test
