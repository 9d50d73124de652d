// One address served by the engine: an evhttp listener with its TLS identity, its handler, its
// faults and latency, its connections and its counters. Lives on the loop thread only.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "common/result.hpp"
#include "engine/event_loop.hpp"
#include "engine/fault_dice.hpp"
#include "simulator/engine.hpp"
#include "simulator/tls_identity.hpp"

struct bufferevent;
struct event;
struct event_base;
struct evhttp;
struct evhttp_connection;
struct evhttp_request;

namespace sim::engine {

// Connection counts across every site of one engine.
struct ConnectionTotals {
  std::uint32_t open = 0;
  std::uint32_t peak = 0;
};

struct SiteConfig {
  std::string id;
  std::string address;
  std::shared_ptr<BmcHandler> handler;
  std::shared_ptr<const TlsIdentity> tls;  // null: plain HTTP
  LatencyModel latency;
  TransportFaults transport;
  std::uint64_t seed = 1;
  std::uint64_t index = 0;
  std::size_t maxBodyBytes = 0;
  int idleTimeoutSeconds = 120;
  std::shared_ptr<Mailbox> mailbox;  // how answers that come later reach the loop
};

class HttpSite {
 public:
  HttpSite(event_base* base, SiteConfig config, ConnectionTotals* totals);
  ~HttpSite();  // closes the listener and every connection
  HttpSite(const HttpSite&) = delete;
  HttpSite& operator=(const HttpSite&) = delete;

  // Binds address:port (0 = a free port); returns the bound port.
  common::Result<std::uint16_t> bind(std::uint16_t port);

  const std::string& id() const { return config_.id; }
  const std::string& address() const { return config_.address; }
  std::string fingerprint() const { return config_.tls ? config_.tls->fingerprint() : ""; }
  bool tls() const { return config_.tls != nullptr; }
  void setFaults(const LatencyModel& latency, const TransportFaults& transport);
  void setIdentity(std::shared_ptr<const TlsIdentity> tls) { config_.tls = std::move(tls); }
  BmcStats stats() const;

 private:
  struct Connection;
  // A request whose answer waits for its latency timer, a held one, or one whose handler answers
  // later.
  struct Pending;

  static bufferevent* newBufferevent(event_base* base, void* self);
  static void onRequest(evhttp_request* request, void* self);
  static void onConnectionClosed(evhttp_connection* connection, void* self);
  static void onTimer(int, short, void* pending);
  static void onReset(int, short, void* connection);
  static void onHeldDone(int, short, void* connection);

  Connection* track(evhttp_connection* connection);
  void serve(evhttp_request* request, Connection* connection);
  HttpResponse answer(evhttp_request* request, FaultOutcome outcome);
  void hold(evhttp_request* request, Connection* connection);
  Pending& watchClose(evhttp_request* request, Connection* connection);
  void defer(evhttp_request* request, Connection* connection, FaultOutcome outcome,
             std::function<void(AnswerSink)> later);
  void resolve(std::uint64_t id, HttpResponse response);
  HttpResponse finish(FaultOutcome outcome, HttpResponse response);
  void reply(evhttp_request* request, Connection* connection, HttpResponse response);
  void scheduleReset(Connection* connection);
  void finishTimer(Pending* pending);
  void forget(evhttp_connection* connection);

  event_base* base_;
  evhttp* http_;
  SiteConfig config_;
  FaultDice dice_;
  ConnectionTotals* totals_;
  BmcStats stats_;
  std::unordered_map<evhttp_connection*, std::unique_ptr<Connection>> connections_;
  std::unordered_map<std::uint64_t, Pending*> deferred_;  // answers to come, by id
  std::uint64_t nextDeferred_ = 1;
};

}  // namespace sim::engine
