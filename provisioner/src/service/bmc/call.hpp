// What a `provisioner bmc` subcommand works with once connected, and what they share: which
// system or chassis to act on, the vendor quirks, plain GETs of resources the redfish library
// has no typed reader for, and the output conventions (JSON on stdout, errors on stderr).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "flags.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"
#include "redfish/tasks.hpp"

namespace provisioner::service::bmc {

struct BmcCall {
  std::shared_ptr<redfish::Client> client;
  const ParsedFlags& flags;
  std::ostream& out;
  std::ostream& err;
  const BmcCommandOptions& options;
};

// One subcommand: its flags, a check of their values before the BMC is contacted, and the run.
struct Subcommand {
  std::string_view name;
  std::string_view synopsis;  // its own flags, for the usage text
  std::string_view summary;   // what it does, lines of at most 60 characters
  FlagSpec flags;
  std::string (*check)(const ParsedFlags& flags);  // the usage problem, or ""; may be null
  int (*run)(BmcCall& call);
};

// The subcommands, one family per file.
const Subcommand& inventoryCommand();
const Subcommand& powerCommand();
const Subcommand& bootCommand();
const Subcommand& biosCommand();
const Subcommand& firmwareCommand();
const Subcommand& updateCommand();
const Subcommand& tasksCommand();

// GET `path` as JSON: a non-2xx answer is the library's typed HTTP error, the body is parsed
// with its limits.
common::Result<nlohmann::json> getJson(redfish::Client& client, const std::string& path);

// The vendor quirks from the service root.
common::Result<redfish::Quirks> readQuirks(redfish::Client& client);

// --system PATH, else the first member of the service root's Systems.
common::Result<std::string> systemPath(redfish::Client& client, const ParsedFlags& flags);

// --chassis-path PATH, else the first chassis the system links (Links.Chassis).
common::Result<std::string> chassisPath(redfish::Client& client, const ParsedFlags& flags);

// A bmc_not_supported error, as the library makes them.
common::Error notSupported(std::string message);

// {"task_monitor", "task"}: where to follow what an action started.
nlohmann::json taskJson(const redfish::TaskRef& task);
// {"state", "percent", "messages"} of a task.
nlohmann::json taskResultJson(const redfish::TaskResult& result);

// The document on `out` (invalid UTF-8 from a BMC replaced, never thrown on); exit 0.
int printJson(std::ostream& out, const nlohmann::json& document);
// "error: <message> (<code>)" and "detail: <detail>" on `err`; exit 1.
int printError(std::ostream& err, const common::Error& error);
// printJson for a value, printError for an error.
int finish(BmcCall& call, const common::Result<nlohmann::json>& result);

}  // namespace provisioner::service::bmc
