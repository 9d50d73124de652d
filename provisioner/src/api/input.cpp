#include "input.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "common/mac_address.hpp"
#include "provisioner/http/pagination.hpp"
#include "workflows/clock.hpp"

namespace provisioner::api {
namespace {

using common::invalidArgument;
using common::Result;

constexpr std::int64_t kMaxGpus = 64;
constexpr std::int64_t kMaxU = 60;

Result<std::optional<int>> smallInt(const http::FieldReader& in, std::string_view name,
                                    std::int64_t min, std::int64_t max) {
  PROV_ASSIGN(auto v, in.optionalInt(name, min, max));
  if (!v) return std::optional<int>{};
  return std::optional<int>(static_cast<int>(*v));
}

Result<std::string> optionalText(const http::FieldReader& in, std::string_view name,
                                 std::size_t max_length = 256) {
  PROV_ASSIGN(auto v, in.optionalString(name, max_length));
  return v ? trimmed(*v) : std::string();
}

// `clock`'s now to the second (the system clock's when null).
inventory::health::Seconds secondsOn(const std::shared_ptr<workflows::Clock>& clock) {
  return std::chrono::floor<std::chrono::seconds>(clock ? clock->now()
                                                        : std::chrono::system_clock::now());
}

}  // namespace

std::string trimmed(std::string_view s) {
  auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

Result<std::string> requiredText(const http::FieldReader& in, std::string_view name,
                                 std::size_t max_length) {
  PROV_ASSIGN(auto v, in.requiredString(name, max_length));
  std::string t = trimmed(v);
  if (t.empty()) {
    return common::fail(invalidArgument("invalid_field", std::string(name) + " must not be empty",
                                        in.pathOf(name)));
  }
  return t;
}

Result<inventory::Id> idParam(const http::Request& request, std::string_view name) {
  const std::string& text = request.pathParam(name);
  inventory::Id id = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || ptr != text.data() + text.size() || id <= 0) {
    return common::fail(invalidArgument(
        "invalid_field", std::string(name) + " must be a positive integer", std::string(name)));
  }
  return id;
}

Result<inventory::PageRequest> pageRequest(const http::Request& request) {
  inventory::PageRequest page;
  PROV_ASSIGN(page.limit, http::parseLimit(request.query("limit")));
  if (auto cursor = request.query("cursor"); cursor && !cursor->empty()) {
    PROV_ASSIGN(page.after, http::decodeCursor(*cursor));
  }
  return page;
}

inventory::health::Seconds requestTime(const ApiContext& ctx) {
  return secondsOn(ctx.clock);
}

inventory::health::Seconds healthTime(const ApiContext& ctx) {
  return secondsOn(ctx.health_clock);
}

std::string actorOf(const http::Request& request) {
  return request.principal ? request.principal->name : std::string("anonymous");
}

Result<inventory::LineItem> readLineItem(const http::FieldReader& in) {
  inventory::LineItem item;
  PROV_ASSIGN(auto line_no, in.requiredInt("line_no", 1, 100000));
  item.line_no = static_cast<int>(line_no);
  PROV_ASSIGN(item.model, requiredText(in, "model"));
  PROV_ASSIGN(auto quantity, in.requiredInt("quantity", 1, 1000000));
  item.quantity = static_cast<int>(quantity);
  PROV_ASSIGN(item.gpu_count, smallInt(in, "gpu_count", 0, kMaxGpus));
  PROV_ASSIGN(item.description, optionalText(in, "description", 1024));
  return item;
}

Result<inventory::ExpectedAssetSpec> readExpectedAsset(const http::FieldReader& in,
                                                       bool require_model) {
  inventory::ExpectedAssetSpec a;
  PROV_ASSIGN(a.chassis_serial, requiredText(in, "chassis_serial", 128));
  PROV_ASSIGN(a.model, require_model ? requiredText(in, "model") : optionalText(in, "model"));
  PROV_ASSIGN(auto mac, optionalText(in, "bmc_mac", 64));
  if (!mac.empty()) {
    auto normal = common::normalizeMac(mac);
    if (!normal) return common::fail(std::move(normal).error().withField(in.pathOf("bmc_mac")));
    a.bmc_mac = *normal;
  }
  PROV_ASSIGN(a.factory_username, optionalText(in, "factory_username", 128));
  PROV_ASSIGN(auto password, in.optionalString("factory_password", 256));
  a.factory_password = password.value_or("");
  PROV_ASSIGN(a.rack, optionalText(in, "rack", 128));
  PROV_ASSIGN(a.gpu_count, smallInt(in, "gpu_count", 0, kMaxGpus));
  PROV_ASSIGN(a.u_position, smallInt(in, "u_position", 1, kMaxU));
  PROV_ASSIGN(a.line_no, smallInt(in, "line_no", 1, 100000));
  return a;
}

Result<std::vector<inventory::ExpectedAssetSpec>> readExpectedAssets(const http::FieldReader& in,
                                                                     std::string_view name,
                                                                     bool require_model) {
  PROV_ASSIGN(auto readers, in.arrayOfObjects(name));
  std::vector<inventory::ExpectedAssetSpec> out;
  for (std::size_t i = 0; i < readers.size(); ++i) {
    PROV_ASSIGN(auto a, readExpectedAsset(readers[i], require_model));
    a.source_index = static_cast<int>(i);
    out.push_back(std::move(a));
  }
  return out;
}

Result<std::vector<inventory::LineItem>> readLineItems(const http::FieldReader& in,
                                                       std::string_view name) {
  PROV_ASSIGN(auto readers, in.arrayOfObjects(name));
  std::vector<inventory::LineItem> out;
  for (const auto& r : readers) {
    PROV_ASSIGN(auto item, readLineItem(r));
    out.push_back(std::move(item));
  }
  return out;
}

common::Result<std::optional<std::string>> optionalBurnInPlan(const http::FieldReader& in,
                                                              std::string_view name) {
  PROV_ASSIGN(auto plan_in, in.optionalObject(name));
  if (!plan_in) return std::optional<std::string>();
  auto plan = agent::parseBurnInPlan(plan_in->json());
  if (!plan) {
    common::Error e = std::move(plan).error();
    e.field = e.field.empty() ? in.pathOf(name) : in.pathOf(name) + "." + e.field;
    return common::fail(std::move(e));
  }
  return std::optional<std::string>(agent::toJson(*plan).dump());
}

}  // namespace provisioner::api
