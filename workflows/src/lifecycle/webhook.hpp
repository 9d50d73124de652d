// One JSON POST to a scheduler's webhook (hand-off, drain, resume), with a bearer token when
// set (never logged) and short time-outs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "common/result.hpp"

namespace workflows::lifecycle {

struct WebhookAnswer {
  int status = 0;
  std::string body;
};

// InvalidArgument "invalid_webhook_url" when the URL is not http(s)://host[/path]; Unavailable
// "webhook_unreachable" when nothing answered. Any HTTP answer is returned for the caller to judge.
common::Result<WebhookAnswer> postWebhook(const std::string& url, const std::string& token,
                                          const nlohmann::json& payload);

}  // namespace workflows::lifecycle
