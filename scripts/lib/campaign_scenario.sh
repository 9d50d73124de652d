# scripts/demo --scenario campaign: after the rack's bring-up, two firmware campaigns on the
# ready nodes. Sourced by scripts/demo (needs its ctl, rack_api, sim_api, say, WORK, NODES and
# the running service and simulator).
#
# 1. Baseline rev 1 raises the BMC (23.11.22 -> 24.10.1) and the GPU firmware (96.00.89.00.01 ->
#    96.00.9A.00.01): canary of 2, waves 50% then the rest, at most 2 nodes in flight per rack,
#    quick check on each node. One node's BMC reports success but keeps its version: caught
#    (version_unchanged), rolled back; the campaign completes within its failure budget.
# 2. Baseline rev 2 moves the GPUs to 96.00.A0.00.01, a firmware that makes GPUs 6% slower (the
#    simulator's slowdown fault): every node still passes its absolute thresholds, but the
#    canary-against-control gate pauses the campaign naming the metric and the delta.
# It ends with the compliance report. Exit 1 unless the outcomes are exactly these.
# The GPU packages are installed by multipart push (the DGX BMC's MultipartHttpPushUri, the file
# streamed from the service's store), the BMC's by SimpleUpdate.
#
# With --kill-replica (scripts/lib/replica.sh) only campaign 1 runs, with a second replica on the
# same database and without the quick check (the simulated hosts network-boot from replica-1,
# which may be the one killed): while a node's BMC runs the GPU firmware push, the replica
# holding that node's update run is SIGKILLed; the other resumes it after the lease (6 s). The
# BMCs' own task lists show each component flashed exactly once per node (per target and
# version); the campaign completes with the one version_unchanged node rolled back.

# campaign_package NAME VERSION COMPONENT PATTERN APPLY: a simulated firmware file (the
# simulator installs the version it names) uploaded and registered as a package.
campaign_package() { # NAME VERSION COMPONENT PATTERN APPLY [INSTALL_METHOD]
  local file="$WORK/fw/$1-$2.fwpkg"
  mkdir -p "$WORK/fw"
  printf '{"version": "%s"}\n' "$2" >"$file"
  ctl firmware packages upload "$file" --name "$1" --version "$2" --vendor NVIDIA \
    --models DGXH100 --component "$3" --pattern "$4" --apply "$5" --allow-downgrade \
    --install-method "${6:-simple_update}" >/dev/null
}

campaign_baseline() { # FILE BMC_VERSION GPU_VERSION
  cat >"$1" <<YAML
name: dgx-h100-fleet
description: DGX H100 firmware for training partitions
models:
  DGXH100:
    bmc:
      accepted: ["$2"]
      target: {package: dgx-bmc, version: "$2"}
    gpu:
      accepted: ["$3"]
      target: {package: dgx-gpu, version: "$3"}
YAML
}

campaign_spec() { # FILE NAME BASELINE_REVISION [QUICK_CHECK]
  cat >"$1" <<JSON
{"name": "$2", "kind": "firmware", "baseline": {"name": "dgx-h100-fleet", "revision": $3},
 "selector": {"site": "sjc1", "model": "DGXH100", "states": ["ready"]},
 "canary": {"count": 2}, "bake_seconds": 120, "waves": [50, "rest"],
 "caps": {"global": 8, "per_rack": 2}, "failure_budget": {"count": 1},
 "quick_check": ${4:-true}, "gate": {"max_regression_percent": 3}}
JSON
}

# campaign_run ID: start it and watch until it completes or pauses (bounded).
campaign_run() {
  ctl campaign start "$1" >/dev/null || return 1
  campaign_watch "$1"
}

campaign_watch() { # ID
  local deadline=$(($(date +%s) + ${DEMO_CAMPAIGN_DEADLINE_S:-600}))
  while :; do
    local state
    state=$(rack_api GET "/campaigns/$1" | jq -r .state)
    case "$state" in completed | paused | cancelled) break ;; esac
    [ "$(date +%s)" -lt "$deadline" ] || { echo "campaign $1 did not settle in time" >&2; return 1; }
    ctl campaign watch "$1" --once | tail -n +1 | head -12
    sleep 5
  done
  ctl campaign show "$1"
}

campaign_scenario() {
  local fail=0 unchanged_id unchanged_serial
  say "Firmware: packages for the BMC and the GPUs (simulated firmware files)"
  campaign_package dgx-bmc 23.11.22 bmc HostBMC immediate
  campaign_package dgx-bmc 24.10.1 bmc HostBMC immediate
  campaign_package dgx-gpu 96.00.89.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle multipart_push
  campaign_package dgx-gpu 96.00.9A.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle multipart_push
  campaign_package dgx-gpu 96.00.A0.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle multipart_push
  ctl firmware packages list

  say "The baseline, from the operators' git: provisionerctl baseline apply (dry run, then for real)"
  campaign_baseline "$WORK/baseline.yaml" 24.10.1 96.00.9A.00.01
  ctl baseline apply "$WORK/baseline.yaml" --dry-run
  ctl baseline apply "$WORK/baseline.yaml"
  rack_profile --baseline dgx-h100-fleet

  # One node's BMC will say its update succeeded and keep its version; one GPU firmware is slow.
  # A node the bring-up made ready (not the mismatched chassis, not the weak GPU).
  local n=1
  while [ "$n" -eq "$MISMATCH" ] || [ "$n" -eq "$SLOW" ]; do n=$((n + 1)); done
  unchanged_id=$(printf 'r01-n%02d' "$n")
  sim_api PUT "/bmcs/$unchanged_id/faults" '{"firmware_version_unchanged": true}' >/dev/null
  sim_api PUT /faults '{"firmware_slowdown": {"match": "HGX_FW_GPU", "version": "96.00.A0.00.01", "percent": 6}}' >/dev/null
  unchanged_serial=$(jq -r --arg id "$unchanged_id" '.[] | select(.id == $id) | .identity.chassis_serial' "$WORK/bmcs.json")
  echo "$unchanged_id ($unchanged_serial) will report success without changing its BMC version"
  if [ -n "${KILL_REPLICA:-}" ]; then
    campaign_kill_replica "$n" "$unchanged_id" "$unchanged_serial"
    return
  fi

  say "Campaign 1: BMC 24.10.1 and GPU 96.00.9A.00.01 (provisionerctl campaign create/plan/start)"
  campaign_spec "$WORK/campaign1.json" fleet-2026-12 1
  local c1
  c1=$(ctl --json campaign create "$WORK/campaign1.json" | jq -r .id) || true
  [ -n "$c1" ] || { echo "campaign 1 was not created" >&2; return 1; }
  ctl campaign plan "$c1" | head -20
  campaign_run "$c1"

  sim_api PUT "/bmcs/$unchanged_id/faults" '{"firmware_version_unchanged": false}' >/dev/null
  say "Campaign 2: GPU 96.00.A0.00.01 (the simulator makes GPUs 6% slower at this version)"
  campaign_baseline "$WORK/baseline.yaml" 24.10.1 96.00.A0.00.01
  ctl baseline apply "$WORK/baseline.yaml"
  campaign_spec "$WORK/campaign2.json" gpu-a0 2
  local c2
  c2=$(ctl --json campaign create "$WORK/campaign2.json" | jq -r .id) || true
  [ -n "$c2" ] || { echo "campaign 2 was not created" >&2; return 1; }
  campaign_run "$c2"

  say "Compliance (provisionerctl firmware compliance)"
  ctl firmware compliance --by rack
  ctl firmware compliance | head -20

  # The outcomes, checked.
  local n1 reason1 state2 reason2
  n1=$(rack_api GET "/campaigns/$c1" | jq -r .state)
  [ "$n1" = completed ] || { echo "campaign 1 is $n1, not completed" >&2; fail=1; }
  reason1=$(rack_api GET "/campaigns/$c1/nodes?state=rolled_back" | jq -r '[.items[] | .reason] | join(",")')
  [ "$reason1" = version_unchanged ] || { echo "campaign 1 rolled back: '$reason1', expected one version_unchanged" >&2; fail=1; }
  state2=$(rack_api GET "/campaigns/$c2" | jq -r .state)
  reason2=$(rack_api GET "/campaigns/$c2" | jq -r .pause_reason)
  [ "$state2" = paused ] || { echo "campaign 2 is $state2, not paused" >&2; fail=1; }
  grep -q '^canary_regression: .*-6' <<<"$reason2" || { echo "campaign 2 paused for '$reason2'" >&2; fail=1; }
  if [ "$fail" -ne 0 ]; then
    echo "What the campaigns' failed nodes say:" >&2
    for c in "$c1" "$c2"; do
      rack_api GET "/campaigns/$c/nodes?limit=100" |
        jq -c '.items[] | select(.state != "succeeded") | {node_id, state, reason, detail}' >&2
    done
  fi
  [ "$fail" -eq 0 ] && echo && echo "Scenario as expected: campaign 1 completed with $unchanged_serial rolled back (version_unchanged); campaign 2 paused: $reason2"
  return "$fail"
}

# campaign_kill_replica N UNCHANGED_BMC UNCHANGED_SERIAL: campaign 1 with a replica SIGKILLed
# while the next ready node after N pushes its GPU firmware (--kill-replica).
campaign_kill_replica() {
  local fail=0 m=$(($1 + 1)) victim_bmc victim_node c1 task
  while [ "$m" -eq "$MISMATCH" ] || [ "$m" -eq "$SLOW" ]; do m=$((m + 1)); done
  victim_bmc=$(printf 'r01-n%02d' "$m")
  victim_node=$(rack_node_id "$victim_bmc")
  [ -n "$victim_node" ] || { echo "no ready node behind $victim_bmc" >&2; return 1; }
  replica_start_second || return 1
  # What the bring-up flashed stays out of the count: only the campaign's tasks are checked.
  local -A before
  local i bmc
  for i in $(seq 1 "$NODES"); do
    bmc=$(printf 'r01-n%02d' "$i")
    before[$bmc]=$(sim_task_count "$bmc" firmware)
  done

  say "Campaign 1 on two replicas: BMC 24.10.1 and GPU 96.00.9A.00.01, no quick check"
  campaign_spec "$WORK/campaign1.json" fleet-2026-12 1 false
  c1=$(ctl --json campaign create "$WORK/campaign1.json" | jq -r .id) || true
  [ -n "$c1" ] || { echo "campaign 1 was not created" >&2; return 1; }
  ctl campaign start "$c1" >/dev/null || return 1
  task=$(replica_wait_bmc_task "$victim_bmc" \
    '.kind == "firmware" and .method == "MultipartHttpPushUri" and .state == "Running"') || return 1
  echo -n "$victim_bmc (node $victim_node) is running GPU firmware push $task: "
  replica_kill_holder node_firmware_update "campaign:$c1:node:$victim_node"
  campaign_watch "$c1" || fail=1

  # The outcomes, checked.
  local state rolled victim_state
  state=$(rack_api GET "/campaigns/$c1" | jq -r .state)
  [ "$state" = completed ] || { echo "campaign 1 is $state, not completed" >&2; fail=1; }
  rolled=$(rack_api GET "/campaigns/$c1/nodes?state=rolled_back" | jq -r '[.items[] | .reason] | join(",")')
  [ "$rolled" = version_unchanged ] || { echo "campaign 1 rolled back: '$rolled', expected one version_unchanged" >&2; fail=1; }
  victim_state=$(rack_api GET "/campaigns/$c1/nodes?limit=100" |
    jq -r --argjson n "$victim_node" '.items[] | select(.node_id == $n) | .state')
  [ "$victim_state" = succeeded ] || { echo "node $victim_node is $victim_state in campaign 1, not succeeded" >&2; fail=1; }
  local flashed methods
  for i in $(seq 1 "$NODES"); do
    bmc=$(printf 'r01-n%02d' "$i")
    flashed=$(sim_tasks_once "$bmc" firmware 0 "${before[$bmc]}") ||
      { echo "$bmc flashed a component twice: $(sim_tasks "$bmc" firmware "${before[$bmc]}")" >&2; fail=1; }
  done
  methods=$(sim_tasks "$victim_bmc" firmware "${before[$victim_bmc]}" | jq -c 'map(.method) | sort')
  [ "$methods" = '["MultipartHttpPushUri","SimpleUpdate"]' ] ||
    { echo "$victim_bmc: $methods, expected one SimpleUpdate (BMC) and one multipart push (GPU): $(sim_tasks "$victim_bmc" firmware "${before[$victim_bmc]}")" >&2; fail=1; }
  echo "$victim_bmc's firmware tasks in the campaign: $(sim_tasks "$victim_bmc" firmware "${before[$victim_bmc]}")"
  echo "$2's firmware tasks in the campaign: $(sim_tasks "$2" firmware "${before[$2]}")"
  if [ "$fail" -ne 0 ]; then
    rack_api GET "/campaigns/$c1/nodes?limit=100" |
      jq -c '.items[] | select(.state != "succeeded") | {node_id, state, reason, detail}' >&2
  fi
  [ "$fail" -eq 0 ] && echo && echo "Scenario as expected: after the SIGKILL every component was flashed once per node; campaign 1 completed with $3 rolled back (version_unchanged)."
  return "$fail"
}
