// Listing helpers: --limit parsing and following next_cursor across pages for --all.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "provisioner/cli/command.hpp"
#include "provisioner/cli/url.hpp"

namespace provisioner::cli {

struct Listing {
  nlohmann::json items = nlohmann::json::array();
  bool more = false;    // the server has pages we did not fetch
  bool merged = false;  // several pages were fetched (--all)
  std::string raw;      // the single page's body when only one page was fetched
};

// --limit N: a positive integer, else a usage error. Absent: nullopt (server default).
common::Result<std::optional<int>> parseLimit(const CommandContext& context);

// Fetches one page, or every page when the invocation has --all. Stops with an error when the
// server repeats a cursor, rather than looping forever.
common::Result<Listing> fetchListing(CommandContext& context, const std::string& path, Query query);

// --json: the page as the server sent it, or {"items": [...], "next_cursor": null} for --all.
void printListingJson(std::ostream& out, const Listing& listing);

// After a table: tells the user on stderr that more pages exist.
void noteMorePages(const CommandContext& context, const Listing& listing);

}  // namespace provisioner::cli
