#include "redfish/support/mockup_client.hpp"

#include <cstdlib>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace redfish::testing {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string withoutScheme(const std::string& target) {
  auto scheme = target.find("://");
  if (scheme == std::string::npos) return target;
  auto slash = target.find('/', scheme + 3);
  return slash == std::string::npos ? "/" : target.substr(slash);
}

bool readFile(const std::filesystem::path& file, std::string& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return true;
}

std::string keyOf(Method method, const std::string& path) {
  return std::string(toString(method)) + " " + path;
}

}  // namespace

std::string Sent::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (lower(key) == lower(name)) return value;
  }
  return {};
}

Response jsonResponse(long status, const nlohmann::json& body, HeaderList headers) {
  Response response;
  response.status = status;
  response.body = body.is_null() ? std::string() : body.dump();
  response.headers = std::move(headers);
  return response;
}

Response redfishError(long status, std::string messageId, std::string message) {
  nlohmann::json body = {
      {"error",
       {{"code", messageId},
        {"message", message},
        {"@Message.ExtendedInfo", {{{"MessageId", messageId}, {"Message", message}}}}}}};
  return jsonResponse(status, body);
}

FakeClient::FakeClient(Handler handler) : state_(std::make_shared<State>()) {
  state_->handler = std::move(handler);
  worker_ = std::thread([state = state_] { run(state); });
}

FakeClient::~FakeClient() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  if (worker_.get_id() == std::this_thread::get_id()) {
    worker_.detach();  // released from a callback: the worker exits when it returns
  } else {
    worker_.join();
  }
}

void FakeClient::sendAsync(Request request, ResponseCallback done) {
  {
    std::lock_guard lock(state_->mutex);
    state_->sent.push_back(
        Sent{request.method, request.target, request.body, request.headers, request.multipart});
    state_->maxInFlight = std::max(state_->maxInFlight, ++state_->inFlight);
    state_->queue.emplace_back(std::move(request), std::move(done));
  }
  state_->wake.notify_one();
}

void FakeClient::run(std::shared_ptr<State> state) {
  for (;;) {
    std::pair<Request, ResponseCallback> item;
    {
      std::unique_lock lock(state->mutex);
      state->wake.wait(lock, [&state] { return state->stopping || !state->queue.empty(); });
      if (state->stopping) return;
      item = std::move(state->queue.front());
      state->queue.pop_front();
    }
    auto result = state->handler(item.first);
    if (result) result->url = state->baseUrl + withoutScheme(item.first.target);
    {
      std::lock_guard lock(state->mutex);
      --state->inFlight;
    }
    item.second(std::move(result));
  }
}

std::vector<Sent> FakeClient::sent() const {
  std::lock_guard lock(state_->mutex);
  return state_->sent;
}

std::size_t FakeClient::count() const {
  std::lock_guard lock(state_->mutex);
  return state_->sent.size();
}

std::size_t FakeClient::countOf(Method method) const {
  std::lock_guard lock(state_->mutex);
  return static_cast<std::size_t>(
      std::count_if(state_->sent.begin(), state_->sent.end(),
                    [method](const Sent& s) { return s.method == method; }));
}

std::size_t FakeClient::maxInFlight() const {
  std::lock_guard lock(state_->mutex);
  return state_->maxInFlight;
}

MockupClient::MockupClient(std::string dumpDir, ExpandMode expand)
    : FakeClient([this](const Request& request) { return answer(request); }),
      dumpDir_(std::move(dumpDir)),
      expand_(expand) {}

void MockupClient::script(Method method, std::string path, Response response) {
  script(method, std::move(path), [response](const Request&) { return response; });
}

void MockupClient::script(Method method, std::string path,
                          std::function<Response(const Request&)> answer) {
  std::lock_guard lock(scriptMutex_);
  scripts_[keyOf(method, path)] = std::move(answer);
}

namespace {

// A shipped simulator profile: the recorded resources the crawl reaches, keyed by path.
const nlohmann::json* bundleResources(const std::string& bundlePath) {
  static std::mutex mutex;
  static std::map<std::string, nlohmann::json> bundles;
  std::lock_guard lock(mutex);
  auto it = bundles.find(bundlePath);
  if (it == bundles.end()) {
    std::string text;
    readFile(bundlePath, text);
    auto parsed = nlohmann::json::parse(text, nullptr, false);
    it = bundles.emplace(bundlePath, parsed.is_object() ? parsed["resources"] : nlohmann::json())
             .first;
  }
  return it->second.is_object() ? &it->second : nullptr;
}

bool readRecorded(const std::string& dir, const std::string& path, std::string& body) {
  if (dir.size() > 5 && dir.compare(dir.size() - 5, 5, ".json") == 0) {
    const nlohmann::json* resources = bundleResources(dir);
    if (resources == nullptr) return false;
    auto it = resources->find(path);
    if (it == resources->end()) return false;
    body = it->dump();
    return true;
  }
  return readFile(std::filesystem::path(dir + path) / "index.json", body);
}

// The recorded body for `path`, with an ETag header from @odata.etag as a BMC would send.
bool loadResource(const std::string& dir, std::string path, Response& out) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string body;
  if (!readRecorded(dir, path, body)) return false;
  out.status = 200;
  out.body = body;
  auto parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.contains("@odata.etag") && parsed["@odata.etag"].is_string()) {
    out.headers.emplace_back("etag", parsed["@odata.etag"].get<std::string>());
  }
  return true;
}

Response expandCollection(const std::string& dir, const Response& collection) {
  auto body = nlohmann::json::parse(collection.body, nullptr, false);
  if (!body.is_object() || !body.contains("Members") || !body["Members"].is_array()) {
    return collection;
  }
  for (auto& entry : body["Members"]) {
    if (!entry.is_object() || !entry.contains("@odata.id")) continue;
    Response memberResponse;
    if (loadResource(dir, entry["@odata.id"].get<std::string>(), memberResponse)) {
      auto parsed = nlohmann::json::parse(memberResponse.body, nullptr, false);
      if (parsed.is_object()) entry = parsed;
    }
  }
  return jsonResponse(200, body);
}

}  // namespace

common::Result<Response> MockupClient::answer(const Request& request) {
  std::string path = withoutScheme(request.target);
  {
    std::lock_guard lock(scriptMutex_);
    auto scripted = scripts_.find(keyOf(request.method, path));
    if (scripted != scripts_.end()) return scripted->second(request);
  }
  if (request.method != Method::kGet) return jsonResponse(204, nullptr);
  std::string query;
  if (auto mark = path.find('?'); mark != std::string::npos) {
    query = path.substr(mark + 1);
    path = path.substr(0, mark);
  }
  if (query.rfind("$expand", 0) == 0 && expand_ == ExpandMode::kRefuse) {
    return redfishError(400, "Base.1.8.QueryNotSupported", "Querying is not supported.");
  }
  Response response;
  const bool expand = query == "$expand=.($levels=1)";
  if ((!query.empty() && !expand) || !loadResource(dumpDir_, path, response)) {
    // Other queries (paging) address pages the dump did not record.
    return redfishError(404, "Base.1.8.ResourceMissingAtURI",
                        "The resource at the URI " + path + " was not found.");
  }
  if (expand) return expandCollection(dumpDir_, response);
  return response;
}

std::string mockupDir(std::string_view vendor) {
  const char* fromEnv = std::getenv("PROVISIONER_MOCKUPS_DIR");
  std::string root = fromEnv != nullptr && *fromEnv != 0 ? fromEnv : PROVISIONER_MOCKUPS_DIR;
  std::string dir = root + "/" + std::string(vendor);
  if (std::filesystem::is_directory(dir)) return dir;
  // Without ../shared (a bare clone), the simulator's shipped profiles hold the same recorded
  // resources for everything the crawl and the operations read.
  static const std::map<std::string, std::string, std::less<>> kProfiles = {
      {"dell", "dell-r750"},
      {"hpe", "hpe-dl385"},
      {"lenovo", "lenovo-sr670v2"},
      {"supermicro", "supermicro-hgx-h100"},
      {"nvidia_viking", "dgx-h100"}};
  auto profile = kProfiles.find(vendor);
  if (profile == kProfiles.end()) return dir;
  return std::string(PROVISIONER_TEST_SOURCE_DIR) + "/simulator/profiles/" + profile->second +
         ".json";
}

}  // namespace redfish::testing
