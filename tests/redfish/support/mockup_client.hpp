// In-memory redfish::Client implementations for the operation tests. Both complete every request
// asynchronously on one small worker thread (like a transport would) and record what was sent.
//  - FakeClient answers through a scripted function.
//  - MockupClient answers GETs from a recorded dump (<dir><path>/index.json), 404 with a Redfish
//    error body for anything else, 400 to $expand (or expands `$expand=.($levels=1)` when
//    asked), 404 to other queries (pages the dump did not record), 204 to POST/PATCH/DELETE unless
//    a test scripts an answer.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "redfish/client.hpp"

namespace redfish::testing {

struct Sent {
  Method method = Method::kGet;
  std::string target;
  std::string body;
  HeaderList headers;
  std::vector<MultipartPart> multipart;
  std::string header(std::string_view name) const;  // case-insensitive, "" when absent
};

Response jsonResponse(long status, const nlohmann::json& body, HeaderList headers = {});
Response redfishError(long status, std::string messageId, std::string message);

class FakeClient : public Client {
 public:
  using Handler = std::function<common::Result<Response>(const Request&)>;
  explicit FakeClient(Handler handler);
  ~FakeClient() override;
  FakeClient(const FakeClient&) = delete;
  FakeClient& operator=(const FakeClient&) = delete;

  void sendAsync(Request request, ResponseCallback done) override;
  const std::string& baseUrl() const override { return state_->baseUrl; }

  std::vector<Sent> sent() const;
  std::size_t count() const;
  std::size_t countOf(Method method) const;
  std::size_t maxInFlight() const;  // the most requests outstanding at once

 private:
  // Shared with the worker so that the client may be released from inside a callback (the
  // crawl drops its last reference there): the worker then stops on its own.
  struct State {
    Handler handler;
    std::string baseUrl = "https://bmc.test";
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::pair<Request, ResponseCallback>> queue;
    std::vector<Sent> sent;
    std::size_t inFlight = 0;
    std::size_t maxInFlight = 0;
    bool stopping = false;
  };
  static void run(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
  std::thread worker_;
};

enum class ExpandMode { kRefuse, kExpand };

class MockupClient : public FakeClient {
 public:
  explicit MockupClient(std::string dumpDir, ExpandMode expand = ExpandMode::kRefuse);
  // Scripted answer for METHOD+path (e.g. "PATCH /redfish/v1/Systems/1"), checked first.
  void script(Method method, std::string path, Response response);
  void script(Method method, std::string path, std::function<Response(const Request&)> answer);

 private:
  common::Result<Response> answer(const Request& request);
  std::string dumpDir_;
  ExpandMode expand_;
  std::mutex scriptMutex_;
  std::map<std::string, std::function<Response(const Request&)>> scripts_;
};

// The dump directory of one vendor: PROVISIONER_MOCKUPS_DIR "/" name.
std::string mockupDir(std::string_view vendor);

}  // namespace redfish::testing
