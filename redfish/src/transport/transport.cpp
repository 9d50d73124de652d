#include "redfish/transport.hpp"

#include <future>

#include "redfish/errors.hpp"
#include "transport/bmc_state.hpp"
#include "transport/engine.hpp"

namespace redfish {
namespace {

common::Error cancelledAtShutdown(const std::string& baseUrl) {
  return common::Error{common::ErrorKind::kUnavailable,
                       std::string(codes::kCancelled),
                       "the transport is shut down; request to " + baseUrl + " not sent",
                       {},
                       baseUrl};
}

}  // namespace

BmcClient::BmcClient(std::weak_ptr<detail::Engine> engine, std::shared_ptr<detail::BmcState> state)
    : engine_(std::move(engine)), state_(std::move(state)) {}

BmcClient::~BmcClient() = default;

void BmcClient::sendAsync(Request request, ResponseCallback done) {
  auto call = std::make_shared<detail::Call>();
  call->request = std::move(request);
  call->done = std::move(done);
  auto engine = engine_.lock();
  if (engine && engine->post([state = state_, call] { state->submit(call); })) return;
  if (call->done) call->done(cancelledAtShutdown(state_->baseUrl()));
}

const std::string& BmcClient::baseUrl() const {
  return state_->baseUrl();
}

std::string BmcClient::certificateFingerprint() const {
  return state_->certificateFingerprint();
}

void BmcClient::cancelAll() {
  if (auto engine = engine_.lock()) engine->post([state = state_] { state->cancelAll(); });
}

common::Result<void> BmcClient::close() {
  auto engine = engine_.lock();
  if (!engine) return common::success();  // shutdown already deleted the session
  if (engine->onLoopThread()) {
    return common::internalError("BmcClient::close called from a transport callback");
  }
  auto promise = std::make_shared<std::promise<common::Result<void>>>();
  auto future = promise->get_future();
  bool posted = engine->post([state = state_, promise] {
    state->closeSession(
        [promise](common::Result<void> result) { promise->set_value(std::move(result)); });
  });
  if (!posted) return common::success();
  // closeSession completes within closeTimeout once the DELETE starts; a full global limit can
  // delay the start, so the wait is bounded generously rather than exactly.
  auto bound = engine->options().closeTimeout * 2 + std::chrono::seconds(1);
  engine.reset();  // never keep the engine alive from a waiting caller
  if (future.wait_for(bound) != std::future_status::ready) {
    return common::Error{common::ErrorKind::kTimeout,
                         std::string(codes::kTimeout),
                         "closing the session on " + state_->baseUrl() + " timed out",
                         {},
                         state_->baseUrl()};
  }
  return future.get();
}

void BmcClient::setCredentials(std::string username, std::string password) {
  if (auto engine = engine_.lock()) {
    engine->post(
        [state = state_, user = std::move(username), pass = std::move(password)]() mutable {
          state->setCredentials(std::move(user), std::move(pass));
        });
  }
}

std::size_t BmcClient::peakInFlight() const {
  return state_->peakInFlight();
}

Transport::Transport(TransportOptions options)
    : engine_(std::make_shared<detail::Engine>(std::move(options))) {
  engine_->start();
}

Transport::~Transport() {
  shutdown();
}

common::Result<std::shared_ptr<BmcClient>> Transport::client(const BmcEndpoint& endpoint) {
  return engine_->client(endpoint);
}

TransportStats Transport::stats() const {
  return engine_->stats();
}

void Transport::shutdown() {
  engine_->shutdown();
}

}  // namespace redfish
