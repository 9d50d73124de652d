// Converts between libevent's evhttp requests and the simulator's HttpRequest/HttpResponse.
#pragma once

#include "simulator/http_types.hpp"

struct evhttp_request;

namespace sim::engine {

HttpRequest readRequest(evhttp_request* request);
// Sends `response` (Content-Type defaults to application/json when there is a body); after this
// libevent owns and frees `request`.
void sendResponse(evhttp_request* request, const HttpResponse& response);

}  // namespace sim::engine
