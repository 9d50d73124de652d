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

# campaign_package NAME VERSION COMPONENT PATTERN APPLY: a simulated firmware file (the
# simulator installs the version it names) uploaded and registered as a package.
campaign_package() { # NAME VERSION COMPONENT PATTERN APPLY
  local file="$WORK/fw/$1-$2.fwpkg"
  mkdir -p "$WORK/fw"
  printf '{"version": "%s"}\n' "$2" >"$file"
  ctl firmware packages upload "$file" --name "$1" --version "$2" --vendor NVIDIA \
    --models DGXH100 --component "$3" --pattern "$4" --apply "$5" --allow-downgrade >/dev/null
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

campaign_spec() { # FILE NAME BASELINE_REVISION
  cat >"$1" <<JSON
{"name": "$2", "kind": "firmware", "baseline": {"name": "dgx-h100-fleet", "revision": $3},
 "selector": {"site": "sjc1", "model": "DGXH100", "states": ["ready"]},
 "canary": {"count": 2}, "bake_seconds": 120, "waves": [50, "rest"],
 "caps": {"global": 8, "per_rack": 2}, "failure_budget": {"count": 1},
 "quick_check": true, "gate": {"max_regression_percent": 3}}
JSON
}

# campaign_run ID: start it and watch until it completes or pauses (bounded).
campaign_run() {
  ctl campaign start "$1" >/dev/null || return 1
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
  campaign_package dgx-gpu 96.00.89.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle
  campaign_package dgx-gpu 96.00.9A.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle
  campaign_package dgx-gpu 96.00.A0.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle
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
