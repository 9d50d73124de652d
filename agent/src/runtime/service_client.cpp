#include "agent/service_client.hpp"

#include <algorithm>
#include <regex>

#include <nlohmann/json.hpp>

#include "common/hex.hpp"
#include "common/secret_box.hpp"
#include "protocol/json_fields.hpp"
#include "runtime/service_transport.hpp"

namespace agent {

using common::Error;
using common::ErrorKind;
using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;
using transport::Reply;

namespace {

Error badAnswer(const std::string& what, const std::string& why) {
  return Error{ErrorKind::kProtocol,
               "bad_service_answer",
               "the service answered " + what + " " + why,
               {},
               {}};
}

Result<nlohmann::json> jsonBody(const Reply& reply, const std::string& what) {
  auto body = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return badAnswer(what, "with a body that is not JSON");
  return body;
}

// Fails unless the reply is a 2xx.
Result<void> expectSuccess(const Reply& reply, const std::string& what) {
  if (reply.status >= 200 && reply.status <= 299) return common::success();
  return transport::errorFromReply(reply, what);
}

Result<Registration> parseRegistration(const nlohmann::json& body) {
  ObjectReader reader(body, "", "bad_service_answer");
  PROV_TRY(reader.requireObject());
  Registration registration;
  PROV_TRY(reader.readInt("node_id", registration.node_id, 0, INT64_MAX, Need::kOptional));
  PROV_TRY(reader.readInt("task_id", registration.task_id, 0, INT64_MAX, Need::kOptional));
  PROV_TRY(reader.readString("session_token", registration.session_token, Need::kRequired,
                             /*allow_empty=*/false, 4096));
  return registration;
}

Result<ResultAck> parseAck(const nlohmann::json& body) {
  ObjectReader reader(body, "", "bad_service_answer");
  PROV_TRY(reader.requireObject());
  ResultAck ack;
  PROV_TRY(reader.readInt("task_id", ack.task_id, 0, INT64_MAX, Need::kOptional));
  PROV_TRY(reader.readString("state", ack.state, Need::kRequired));
  if (const nlohmann::json* verdict = reader.find("verdict")) ack.verdict_json = verdict->dump();
  return ack;
}

Result<std::string> parseCredential(const nlohmann::json& body) {
  ObjectReader reader(body, "", "bad_service_answer");
  PROV_TRY(reader.requireObject());
  std::string credential;
  PROV_TRY(
      reader.readString("credential", credential, Need::kRequired, /*allow_empty=*/false, 4096));
  return credential;
}

Result<HealthAck> parseHealthAck(const nlohmann::json& body) {
  ObjectReader reader(body, "", "bad_service_answer");
  PROV_TRY(reader.requireObject());
  HealthAck ack;
  std::int64_t samples = 0;
  std::int64_t duplicates = 0;
  PROV_TRY(reader.readInt("samples", samples, 0, INT32_MAX, Need::kOptional));
  PROV_TRY(reader.readInt("duplicates", duplicates, 0, INT32_MAX, Need::kOptional));
  ack.samples = static_cast<int>(samples);
  ack.duplicates = static_cast<int>(duplicates);
  if (const nlohmann::json* rotate = reader.find("rotate_credential")) {
    ack.rotate_credential = rotate->is_boolean() && rotate->get<bool>();
  }
  if (const nlohmann::json* tasks = reader.find("tasks"); tasks && tasks->is_array()) {
    for (const auto& item : *tasks) {
      ObjectReader task(item, "tasks", "bad_service_answer");
      PROV_TRY(task.requireObject());
      ResidentTaskOrder order;
      PROV_TRY(task.readInt("id", order.id, 1, INT64_MAX, Need::kRequired));
      PROV_TRY(task.readString("kind", order.kind, Need::kRequired, false, 64));
      PROV_TRY(task.readString("gpu_serial", order.gpu_serial, Need::kRequired, false, 128));
      if (const nlohmann::json* plan = task.find("plan")) order.plan = *plan;
      ack.tasks.push_back(std::move(order));
    }
  }
  return ack;
}

std::string problemCode(const Reply& reply) {
  auto body = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return "";
  auto code = body.find("code");
  return code != body.end() && code->is_string() ? code->get<std::string>() : "";
}

}  // namespace

struct ServiceClient::Impl {
  Impl(ServiceClientOptions options, transport::Endpoint endpoint)
      : node_path("/api/v1/agent/nodes/" + options.node_id),
        progress_attempts(std::max(1, options.progress_attempts)),
        http(std::move(options), std::move(endpoint)) {}

  std::string node_path;
  int progress_attempts;
  std::string session_token;
  transport::Transport http;
};

Result<ServiceClient> ServiceClient::create(ServiceClientOptions options) {
  PROV_ASSIGN(auto endpoint, transport::parseBaseUrl(options.base_url));
  static const std::regex kNodeId(R"([A-Za-z0-9._-]{1,64})");
  if (!std::regex_match(options.node_id, kNodeId)) {
    return common::invalidArgument(
        "invalid_node_id", "the node id must be 1-64 letters, digits, '.', '_' or '-'", "node_id");
  }
  return ServiceClient(std::make_unique<Impl>(std::move(options), std::move(endpoint)));
}

ServiceClient::ServiceClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ServiceClient::ServiceClient(ServiceClient&&) noexcept = default;
ServiceClient& ServiceClient::operator=(ServiceClient&&) noexcept = default;
ServiceClient::~ServiceClient() = default;

void ServiceClient::setSessionToken(std::string token) {
  impl_->session_token = std::move(token);
}

Result<Registration> ServiceClient::registerNode(const std::string& boot_token,
                                                 const Facts& facts) {
  const std::string what = "registration";
  // One key for every attempt of this registration: a retry whose first attempt the service
  // took (the answer lost with a replica that was killed) registers again instead of being
  // refused as a second use of the one-time token.
  const std::string key = common::hexOf(common::randomBytes(16));
  PROV_ASSIGN(Reply reply, impl_->http.exchange("POST", impl_->node_path + "/register",
                                                toJson(facts).dump(), boot_token, 0, key));
  PROV_TRY(expectSuccess(reply, what));
  PROV_ASSIGN(auto body, jsonBody(reply, what));
  auto registration = parseRegistration(body);
  if (!registration) return badAnswer(what, "without " + registration.error().field);
  impl_->session_token = registration->session_token;
  return registration;
}

Result<Task> ServiceClient::fetchTask() {
  const std::string what = "the task request";
  PROV_ASSIGN(Reply reply,
              impl_->http.exchange("GET", impl_->node_path + "/task", "", impl_->session_token));
  PROV_TRY(expectSuccess(reply, what));
  PROV_ASSIGN(auto body, jsonBody(reply, what));
  auto task = parseTask(body);
  if (!task) return badAnswer(what, "with an invalid task: " + task.error().message);
  return task;
}

Result<void> ServiceClient::postProgress(std::int64_t task_id, const Progress& progress) {
  std::string path = impl_->node_path + "/tasks/" + std::to_string(task_id) + "/progress";
  PROV_ASSIGN(Reply reply, impl_->http.exchange("POST", path, toJson(progress).dump(),
                                                impl_->session_token, impl_->progress_attempts));
  return expectSuccess(reply, "the progress report");
}

Result<std::string> ServiceClient::enrollCredential() {
  const std::string what = "the credential enrolment";
  PROV_ASSIGN(Reply reply, impl_->http.exchange("POST", impl_->node_path + "/credential", "",
                                                impl_->session_token));
  PROV_TRY(expectSuccess(reply, what));
  PROV_ASSIGN(auto body, jsonBody(reply, what));
  auto credential = parseCredential(body);
  if (!credential) return badAnswer(what, "without a credential");
  return credential;
}

Result<HealthAck> ServiceClient::postHealth(const std::string& batch_json,
                                            const std::string& credential, int attempts) {
  const std::string what = "the health batch";
  PROV_ASSIGN(Reply reply, impl_->http.exchange("POST", impl_->node_path + "/health", batch_json,
                                                credential, std::max(1, attempts)));
  PROV_TRY(expectSuccess(reply, what));
  PROV_ASSIGN(auto body, jsonBody(reply, what));
  auto ack = parseHealthAck(body);
  if (!ack) return badAnswer(what, "with " + ack.error().message);
  return ack;
}

Result<void> ServiceClient::reportResidentTask(std::int64_t task_id, bool succeeded,
                                               const std::string& message,
                                               const std::string& done_at,
                                               const std::string& credential,
                                               const nlohmann::json& details) {
  const std::string what = "the resident task's outcome";
  nlohmann::json body = details.is_object() ? details : nlohmann::json::object();
  body["status"] = succeeded ? "succeeded" : "failed";
  body["message"] = message;
  if (!done_at.empty()) body["done_at"] = done_at;
  PROV_ASSIGN(Reply reply, impl_->http.exchange("POST",
                                                impl_->node_path + "/resident-tasks/" +
                                                    std::to_string(task_id) + "/result",
                                                body.dump(), credential));
  PROV_TRY(expectSuccess(reply, what));
  return common::success();
}

Result<std::string> ServiceClient::rotateCredential(const std::string& credential) {
  const std::string what = "the credential rotation";
  PROV_ASSIGN(Reply reply, impl_->http.exchange("POST", impl_->node_path + "/credential/rotate", "",
                                                credential));
  PROV_TRY(expectSuccess(reply, what));
  PROV_ASSIGN(auto body, jsonBody(reply, what));
  auto successor = parseCredential(body);
  if (!successor) return badAnswer(what, "without a credential");
  return successor;
}

Result<ResultAck> ServiceClient::postResult(const TaskResult& result) {
  const std::string what = "the result";
  std::string path = impl_->node_path + "/tasks/" + std::to_string(result.task_id) + "/result";
  PROV_ASSIGN(Reply reply,
              impl_->http.exchange("POST", path, toJson(result).dump(), impl_->session_token));
  // An earlier attempt whose answer was lost may have been accepted: then the task is closed.
  if (reply.status == 409 && reply.attempts > 1 && problemCode(reply) == "task_not_open") {
    return ResultAck{result.task_id, "", "", true};
  }
  PROV_TRY(expectSuccess(reply, what));
  PROV_ASSIGN(auto body, jsonBody(reply, what));
  auto ack = parseAck(body);
  if (!ack) return badAnswer(what, "without " + ack.error().field);
  return ack;
}

}  // namespace agent
