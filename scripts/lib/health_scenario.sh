# scripts/demo --scenario health: after the rack's bring-up, its ready nodes live about a week in
# service in a few minutes, their resident monitors (the real agent::runMonitor on simulated GPUs)
# reporting every GPU every 180 s to the service (docs/health.md). Sourced by scripts/demo (needs
# its ctl, rack_api, say, WORK, NODES, MISMATCH, SLOW and the running service and simulator).
#
# The health history's clock runs 2880 times as fast as the real one (a simulated day in 30 s):
# the simulator's monitors stamp their batches, count their GPUs' degradation and their interval
# on it, and the service keeps the history, rolls up the days and evaluates the rules on the same
# clock (`--health-time-scale`, `--health-clock-epoch`, boot.health_clock; docs/simulator.md).
# Everything else (the bring-up, leases, workflow timers) keeps real time.
#
# Two GPUs degrade from their first reading in service on:
# 1. One's corrected ECC errors grow (450 the first day, 300 more each day after); on its 4th day
#    in service a row remap fails. Expected: flagged by a trend rule before the failure, whose
#    rerun_burn_in action drains the node for a burn-in by its resident agent (a short one passes:
#    the flag is cleared and the node given back; later rerun_burn_in flags of the node wait for
#    an operator, the node having been burned in lately); then nvidia.remap_failure -> its node
#    drained through the scheduler hook and the GPU an RMA candidate; the node stays drained.
# 2. The other's temperature creeps (+4 C a day under load); on its 6.5th day a row remap waits for
#    a GPU reset. Expected: flagged against its rack's peers before that; then nvidia.remap_pending
#    -> reset at idle: drained, the GPU reset by the node's resident agent, a reading after the
#    reset shows no pending remap, the service clears the flag, the node back in service.
# No other GPU is flagged. Exit 1 unless exactly so. The demo configures no scheduler, so a drain
# is granted at once (docs/health.md, "Actions").

HEALTH_SCALE=${DEMO_HEALTH_SCALE:-2880}  # the test suite runs at 1440 (tests/CMakeLists.txt)

# The degrading GPUs' nodes: the first two that are neither the mismatch nor the slow one.
health_scenario_setup() {
  local n=1
  while [ "$n" -eq "$MISMATCH" ] || [ "$n" -eq "$SLOW" ]; do n=$((n + 1)); done
  ECC_NODE=$n
  n=$((n + 1))
  while [ "$n" -eq "$MISMATCH" ] || [ "$n" -eq "$SLOW" ]; do n=$((n + 1)); done
  HOT_NODE=$n
  ECC_GPU=5 HOT_GPU=2
  # On the health clock: 480 readings a GPU a day, a margin over the 360 the peer rules need (a
  # busy machine starves the monitors now and then).
  MONITOR_INTERVAL=180
  HEALTH_EPOCH=$(date +%s)
  HEALTH_CLOCK=", \"health_clock\": {\"epoch\": $HEALTH_EPOCH, \"scale\": $HEALTH_SCALE}"
  HEALTH_SERVICE_ARGS=(--health-time-scale "$HEALTH_SCALE" --health-clock-epoch "$HEALTH_EPOCH"
    --health-sweep-per-minute 0)
  NODE_FAULTS+=", \"$ECC_NODE\": {\"gpu_faults\": [
      {\"gpu\": $ECC_GPU, \"kind\": \"ecc_growth\", \"per_day\": 300},
      {\"gpu\": $ECC_GPU, \"kind\": \"remap_failure\", \"after_days\": 4}]}"
  NODE_FAULTS+=", \"$HOT_NODE\": {\"gpu_faults\": [
      {\"gpu\": $HOT_GPU, \"kind\": \"temperature_creep\", \"per_day\": 4},
      {\"gpu\": $HOT_GPU, \"kind\": \"remap_pending\", \"after_days\": 6.5}]}"
}

# Now on the health clock, as the service reads it (date's FORMAT, default "%Y-%m-%d %H:%M").
health_now() {
  date -u -d "@$(awk -v e="$HEALTH_EPOCH" -v s="$HEALTH_SCALE" -v n="$(date +%s.%N)" \
    'BEGIN {printf "%d", e + (n - e) * s}')" "+${1:-%Y-%m-%d %H:%M}"
}

# health_days SERIAL: the GPU's days in service, one row a day, from the daily roll-ups.
health_days() {
  echo "its days (provisionerctl health gpu $1 --resolution daily):"
  ctl health gpu "$1" --from "$(date -u -d "@$HEALTH_EPOCH" '+%Y-%m-%dT00:00:00Z')" \
    --to "$(health_now '%Y-%m-%dT%H:%M:%SZ')" --resolution daily | sed 's/^/  /'
}

health_flags() { rack_api GET '/health/flags?limit=500'; }

# health_flag FLAGS SERIAL RULE: that GPU's flag of that rule (or nothing).
health_flag() {
  jq -c --arg s "$2" --arg r "$3" '[.items[] | select(.serial == $s and .rule == $r)] | first // empty' <<<"$1"
}

# health_run KIND FLAG_ID: the flag's action run.
health_run() {
  rack_api GET "/workflows/runs?kind=$1&limit=200" |
    jq -c --arg s "gpu_flag:$2" '[.items[] | select(.subject == $s)] | first // empty'
}

# health_settled FLAGS: both outcomes reached: the failed remap's node drained, the pending remap's
# flag cleared and its node given back.
health_settled() {
  local failure pending
  failure=$(health_flag "$1" "$ECC_SERIAL" nvidia.remap_failure)
  pending=$(health_flag "$1" "$HOT_SERIAL" nvidia.remap_pending)
  [ -n "$failure" ] && [ -n "$pending" ] || return 1
  [ "$(jq -r '.action_at // empty' <<<"$failure")" != "" ] || return 1
  [ "$(jq -r '.released_at // empty' <<<"$pending")" != "" ]
}

# The earliest flag of another rule on SERIAL, raised before its flag of FAILURE_RULE. Prints
# "RULE HOURS_AHEAD" (on the health clock); fails when there is none.
health_early_flag() {
  jq -r -e --arg s "$2" --arg f "$3" '
    def t: sub("\\.[0-9]+"; "") | sub("\\+00:00$"; "Z") | fromdateiso8601;
    [.items[] | select(.serial == $s)] as $mine
    | ($mine | map(select(.rule == $f)) | first) as $failure
    | [$mine[] | select(.rule | startswith("nvidia.") | not) | select(.raised_at < $failure.raised_at)]
    | sort_by(.raised_at) | first
    | select(. != null)
    | "\(.rule) \((($failure.raised_at | t) - (.raised_at | t)) / 3600 | floor)"' <<<"$1"
}

# health_flagged_before FLAGS SERIAL FAILURE_RULE: says which flag came first and how long
# before; fails when none did.
health_flagged_before() {
  local early
  if early=$(health_early_flag "$1" "$2" "$3") && [ -n "$early" ]; then
    echo "flagged by ${early% *} ${early#* } h before $3"
  else
    echo "GPU $2 was not flagged before $3" >&2
    return 1
  fi
}

# health_action_story FLAG RUN: the flag's action run and its events, one line each.
health_action_story() {
  echo "flag $(jq -r .id <<<"$1") ($(jq -r .rule <<<"$1"), $(jq -r .action <<<"$1")): run $(jq -r .id <<<"$2") $(jq -r .kind <<<"$2") $(jq -r .state <<<"$2"):"
  rack_api GET "/workflows/runs/$(jq -r .id <<<"$2")" | jq -r '.events[] | "    \(.kind): \(.message)"'
}

# health_burn_ins FLAGS: each burn-in rerun (gpu_flag_burn_in run) with its story, and the nodes'
# resident tasks; fails unless the ECC GPU's early warning got one and every one ended in a verdict.
health_burn_ins() {
  local runs run flag nodes bad=0
  runs=$(rack_api GET "/workflows/runs?kind=gpu_flag_burn_in&limit=200")
  while read -r run; do
    [ -n "$run" ] || continue
    flag=$(jq -c --arg s "$(jq -r .subject <<<"$run")" '.items[] | select("gpu_flag:\(.id)" == $s)' <<<"$1")
    health_action_story "$flag" "$run"
    jq -e '.state == "succeeded"' <<<"$run" >/dev/null ||
      { echo "burn-in run $(jq -r .id <<<"$run") ended $(jq -r .state <<<"$run")" >&2; bad=1; }
  done < <(jq -c '.items | sort_by(.id) | .[]' <<<"$runs")
  for node in $(jq -r '[.items[].node_id] | unique | .[]' <<<"$runs"); do
    echo "node $node's resident tasks (provisionerctl nodes resident-tasks $node):"
    ctl nodes resident-tasks "$node"
  done
  echo "rerun_burn_in flags left to an operator (their node burned in within the cooldown):" \
    "$(jq '[.items[] | select(.action == "rerun_burn_in" and .state == "open" and .action_at == null)] | length' <<<"$1")"
  jq -e --arg s "$ECC_SERIAL" '[.items[] | select(.serial == $s and .action == "rerun_burn_in" and .action_at != null)] | length > 0' \
    <<<"$1" >/dev/null || { echo "GPU $ECC_SERIAL's early warning got no burn-in rerun" >&2; bad=1; }
  return "$bad"
}

health_scenario() {
  local fail=0 deadline flags line last= hot_node failure pending run tasks others
  ECC_SERIAL=$(jq -r --arg id "$(printf 'r01-n%02d' "$ECC_NODE")" --argjson g "$ECC_GPU" \
    '.[] | select(.id == $id) | .identity.gpu_serials[$g]' "$WORK/bmcs.json")
  HOT_SERIAL=$(jq -r --arg id "$(printf 'r01-n%02d' "$HOT_NODE")" --argjson g "$HOT_GPU" \
    '.[] | select(.id == $id) | .identity.gpu_serials[$g]' "$WORK/bmcs.json")
  say "A week in service at ${HEALTH_SCALE}x: GPU $ECC_SERIAL's ECC errors grow, GPU $HOT_SERIAL runs hotter each day"
  echo "(the health history's clock: a simulated day every $((86400 / HEALTH_SCALE)) real seconds; no scheduler configured, so drains are granted at once)"
  deadline=$(($(date +%s) + ${DEMO_HEALTH_DEADLINE_S:-600}))
  while :; do
    flags=$(health_flags || echo '{"items": []}')
    # One line each time the flags change, stamped with the health clock.
    line=$(jq -r '[.items[] | "GPU \(.serial) \(.rule) (\(.state))"] | join(", ") | if . == "" then "no flag" else . end' <<<"$flags")
    [ "$line" = "$last" ] || printf '%s  %s\n' "$(health_now)" "$line"
    last=$line
    health_settled "$flags" && break
    [ "$(date +%s)" -lt "$deadline" ] || { echo; echo "the flags did not settle in time" >&2; fail=1; break; }
    kill -0 "$svc" 2>/dev/null || { echo; echo "the service died" >&2; return 1; }
    sleep 1
  done
  echo
  echo "== The flags (provisionerctl health flags --all; times on the health clock)"
  ctl health flags --all
  failure=$(health_flag "$flags" "$ECC_SERIAL" nvidia.remap_failure)
  pending=$(health_flag "$flags" "$HOT_SERIAL" nvidia.remap_pending)

  echo
  echo "== GPU $ECC_SERIAL: ECC growth, then a failed row remap"
  health_days "$ECC_SERIAL"
  health_flagged_before "$flags" "$ECC_SERIAL" nvidia.remap_failure || fail=1
  if [ -n "$failure" ] && run=$(health_run gpu_flag_drain "$(jq -r .id <<<"$failure")") && [ -n "$run" ]; then
    health_action_story "$failure" "$run"
    jq -e '.state == "succeeded"' <<<"$run" >/dev/null || { echo "the drain run did not succeed" >&2; fail=1; }
    jq -e '.action == "rma_candidate" and .state == "open" and .action_at != null and .released_at == null' \
      <<<"$failure" >/dev/null || { echo "the failed remap's node is not drained as an RMA candidate: $failure" >&2; fail=1; }
  else
    echo "no drain for GPU $ECC_SERIAL's failed remap" >&2; fail=1
  fi

  echo
  echo "== The burn-in reruns: a rerun_burn_in flag drains its node, the resident agent runs the quick check's plan (no reboot), the service judges"
  health_burn_ins "$flags" || fail=1

  echo
  echo "== GPU $HOT_SERIAL: creeping temperature, then a pending row remap"
  health_days "$HOT_SERIAL"
  health_flagged_before "$flags" "$HOT_SERIAL" nvidia.remap_pending || fail=1
  if [ -n "$pending" ] && run=$(health_run gpu_flag_reset "$(jq -r .id <<<"$pending")") && [ -n "$run" ]; then
    hot_node=$(jq -r .node_id <<<"$pending")
    health_action_story "$pending" "$run"
    echo "  the flag cleared by $(jq -r .cleared_by <<<"$pending"): $(jq -r .clear_note <<<"$pending")"
    echo "node $hot_node's resident tasks (provisionerctl nodes resident-tasks $hot_node):"
    ctl nodes resident-tasks "$hot_node"
    tasks=$(rack_api GET "/nodes/$hot_node/resident-tasks")
    jq -e '.state == "succeeded"' <<<"$run" >/dev/null || { echo "the reset run did not succeed" >&2; fail=1; }
    jq -e '.state == "cleared" and .cleared_by == "service" and .released_at != null' <<<"$pending" >/dev/null ||
      { echo "the pending remap's flag is not cleared with its node back in service: $pending" >&2; fail=1; }
    jq -e '[.items[] | select(.kind == "gpu_reset" and .state == "succeeded")] | length == 1' <<<"$tasks" >/dev/null ||
      { echo "expected exactly one GPU reset done on node $hot_node: $tasks" >&2; fail=1; }
  else
    echo "no reset at idle for GPU $HOT_SERIAL's pending remap" >&2; fail=1
  fi

  others=$(jq -r --arg a "$ECC_SERIAL" --arg b "$HOT_SERIAL" \
    '[.items[] | select(.serial != $a and .serial != $b) | "\(.serial) \(.rule)"] | join(", ")' <<<"$flags")
  [ -z "$others" ] || { echo "other GPUs flagged: $others" >&2; fail=1; }
  [ "$fail" -eq 0 ] && echo && echo "Scenario as expected: both GPUs flagged before they failed; the ECC GPU's early warning burned its node in again; one node drained with an RMA candidate, the other reset at idle and back in service; no other flag."
  return "$fail"
}
