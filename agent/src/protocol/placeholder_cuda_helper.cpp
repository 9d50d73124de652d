// TEMPORARY (wt-cuda only): makes the agent_protocol target exist until its sources are merged.
namespace agent {
void placeholderCudaHelper() {}
}  // namespace agent
