// One task run without the service (provisioner-agent --local-task FILE): a burn-in or a wipe on
// this machine's GPUs, for a bench or a GPU check where no service knows the node.
#pragma once

#include <iosfwd>
#include <string_view>

#include "agent/gpu_backend.hpp"
#include "agent/protocol.hpp"
#include "common/result.hpp"

namespace agent {

// `task_json` is a task as the service sends it ({"id": 1, "kind": "burn_in", "plan": {...}} or
// {"id": 1, "kind": "wipe", "wipe": {...}}). Progress lines go to `log`. InvalidArgument
// "invalid_task" for text that is not such a task (kind "none" included); a failure on the GPUs
// is the result's `error`, as the service would receive it.
common::Result<TaskResult> runLocalTask(std::string_view task_json, GpuBackend& backend,
                                        std::ostream& log);

}  // namespace agent
