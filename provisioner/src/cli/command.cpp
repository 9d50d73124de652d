#include "provisioner/cli/command.hpp"

#include <algorithm>
#include <cctype>

#include "provisioner/cli/errors.hpp"

namespace provisioner::cli {

common::Error commandUsageError(const CommandContext& context, std::string message) {
  return usageError(std::move(message), context.spec.usage());
}

bool isDecimalId(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; });
}

void printRawJson(std::ostream& out, const ApiReply& reply) {
  out << reply.body;
  if (!reply.body.ends_with('\n')) out << '\n';
}

common::Result<void> printed(CommandContext& context, const ApiReply& reply,
                             const std::string& line) {
  if (context.json()) {
    printRawJson(context.out, reply);
  } else {
    context.out << line << "\n";
  }
  return common::success();
}

common::Result<std::string> idArgument(CommandContext& context, std::size_t index) {
  const std::string& id = context.invocation.positionals.at(index);
  if (!isDecimalId(id)) {
    return common::fail(commandUsageError(context, "ID must be a number, got '" + id + "'"));
  }
  return id;
}

}  // namespace provisioner::cli
