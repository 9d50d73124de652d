#include "provisioner/cli/paging.hpp"

#include <charconv>
#include <set>

#include "provisioner/cli/errors.hpp"
#include "provisioner/cli/json_fields.hpp"

namespace provisioner::cli {
namespace {

using common::Result;

// The cursor to ask for next, or empty when the page was the last one.
std::string nextCursor(const nlohmann::json& page) {
  return text(page, "next_cursor");
}

common::Error repeatedCursor(const std::string& path) {
  return common::Error{common::ErrorKind::kProtocol,
                       kBadResponseCode,
                       "the server repeated a page cursor while listing " + path,
                       {},
                       {}};
}

}  // namespace

Result<std::optional<int>> parseLimit(const CommandContext& context) {
  auto value = context.invocation.option("limit");
  if (!value) return std::optional<int>{};
  int limit = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), limit);
  if (ec != std::errc() || end != value->data() + value->size() || limit < 1) {
    return common::fail(
        commandUsageError(context, "--limit must be a positive integer, got '" + *value + "'"));
  }
  return std::optional<int>{limit};
}

Result<Listing> fetchListing(CommandContext& context, const std::string& path, Query query) {
  auto limit = parseLimit(context);
  PROV_TRY(limit);
  if (*limit) query.emplace_back("limit", std::to_string(**limit));
  const bool all = context.invocation.has("all");

  Listing listing;
  listing.merged = all;
  std::set<std::string> seenCursors;
  Query pageQuery = query;
  for (;;) {
    auto page = context.api->getJson(path, pageQuery);
    PROV_TRY(page);
    for (const auto& item : arrayField(page->json, "items")) listing.items.push_back(item);
    std::string cursor = nextCursor(page->json);
    listing.more = !cursor.empty();
    if (!all) {
      listing.raw = std::move(page->body);
      return listing;
    }
    if (cursor.empty()) return listing;
    if (!seenCursors.insert(cursor).second) return common::fail(repeatedCursor(path));
    pageQuery = query;
    pageQuery.emplace_back("cursor", cursor);
  }
}

void printListingJson(std::ostream& out, const Listing& listing) {
  if (!listing.merged) {
    out << listing.raw;
    if (!listing.raw.ends_with('\n')) out << '\n';
    return;
  }
  nlohmann::json doc = {{"items", listing.items}, {"next_cursor", nullptr}};
  out << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void noteMorePages(const CommandContext& context, const Listing& listing) {
  if (listing.more) {
    context.err << "(more results: use --all, or --limit to change the page size)\n";
  }
}

}  // namespace provisioner::cli
