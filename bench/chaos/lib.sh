# The chaos harness's parts (bench/chaos/run sources this): the supervised replicas, the fleet,
# the monkey, the phases and the verdict. Needs run's PROV, CTL, ROOT, REPLICA_ARGS,
# REPLICA_PORTS, NODES, RACKS, KILLS, SEED, SCALE, KILL_EVERY, FAULTS, PG_RESTART, CONTROL, and
# scripts/lib/{pg,rack}.sh.

# The steps that change a BMC or a host (docs/workflows.md, "Side effects"): every other kill
# waits for a replica executing one of these.
CHAOS_SIDE_EFFECT_STEPS='["claim", "configure", "firmware", "imaging", "flash", "rollback_flash",
  "quick_check", "check_previous", "drain", "undrain", "handoff", "drives", "platform_reset",
  "wipe_boot", "certify"]'
# Runs that end (the periodic sweeps and upkeep stay open by design).
CHAOS_ENDING_KINDS='["node_lifecycle", "node_firmware_update", "node_image_update",
  "node_decommission", "gpu_flag_drain", "firmware_campaign"]'
# The side effects that must never be asked twice for the same thing within a phase.
CHAOS_ONCE_KINDS='["account_patch", "bios_patch", "boot_override", "firmware_update", "secure_erase"]'
CHAOS_DECOMMISSIONS=3

chaos_log() { echo "chaos: $*" >&2; }

# chaos_retry COMMAND...: COMMAND as an operator runs it behind a load balancer during a
# fail-over: when the replica under the request died (provisionerctl: "cannot reach the
# provisioner service"; curl: refused, empty reply, reset), it is tried again, up to 10 times a
# second apart. A create whose first try did land answers 409 on the next: that counts as done.
# Any other error stands.
chaos_retry() {
  local try rc err=$ROOT/retry.err
  for try in $(seq 1 10); do
    rc=0
    "$@" 2>"$err" || rc=$?
    [ "$rc" -ne 0 ] || return 0
    if [ "$try" -gt 1 ] && grep -q "HTTP 409" "$err"; then return 0; fi
    case "$rc" in 7 | 52 | 56) ;; *) grep -q "cannot reach the provisioner service" "$err" || break ;; esac
    sleep 1
  done
  cat "$err" >&2
  return "$rc"
}
chaos_now() { date +%s.%N; }
chaos_seconds_since() { awk -v a="$1" -v b="$(chaos_now)" 'BEGIN {printf "%.1f", b - a}'; }

# --- replicas: each restarted by a supervisor loop (as systemd's Restart=always would) --------

chaos_supervise() { # INDEX
  local i=$1
  while [ ! -e "$ROOT/stop" ]; do
    "$PROV" serve "${REPLICA_ARGS[@]}" --state-dir "$ROOT/state$i" \
      --listen "127.0.0.1:${REPLICA_PORTS[$((i - 1))]}" --replica-name "replica-$i" \
      >>"$ROOT/service$i.log" 2>&1 &
    echo "$!" >"$ROOT/replica$i.pid"
    wait "$!"
  done
}

CHAOS_SUPERVISORS=()
chaos_start_replicas() {
  local i
  for i in 1 2; do
    (set +e; chaos_supervise "$i") &
    CHAOS_SUPERVISORS+=("$!")
  done
  for i in 1 2; do
    rack_wait "replica-$i" 480 curl -fsS "http://127.0.0.1:${REPLICA_PORTS[$((i - 1))]}/readyz" ||
      { tail -20 "$ROOT/service$i.log" >&2; return 1; }
  done
}

chaos_stop_replicas() {
  touch "$ROOT/stop"
  local i
  for i in "${CHAOS_SUPERVISORS[@]}"; do kill -TERM "$i" 2>/dev/null || true; done
  for i in 1 2; do
    [ -r "$ROOT/replica$i.pid" ] && kill -TERM "$(cat "$ROOT/replica$i.pid")" 2>/dev/null || true
  done
}

# --- the fleet ---------------------------------------------------------------------------------

# The fleet file: NODES DGX H100s over RACKS racks (r01.., the last takes the rest), TLS, and
# with FAULTS every BMC's transport faults.
chaos_fleet_json() {
  # Sessions idle out after 1800 simulated seconds, not the DGX's 30 (0.25 s real at 120x, less
  # than a loaded replica's gap between two requests: docs/simulator.md, "Faults").
  local racks="" left=$NODES per=$((NODES / RACKS)) r n
  local faults='{"latency_ms": 20, "latency_sigma": 0.3, "session_timeout_seconds": 1800}'
  for r in $(seq 1 "$RACKS"); do
    n=$([ "$r" -eq "$RACKS" ] && echo "$left" || echo "$per")
    left=$((left - n))
    racks+="${racks:+,}{\"name\": \"$(printf 'r%02d' "$r")\", \"nodes\": $n, \"profile\": \"dgx-h100\"}"
  done
  [ -z "$FAULTS" ] || faults='{"latency_ms": 20, "latency_sigma": 0.3, "session_timeout_seconds": 1800,
    "http_5xx_rate": 0.02, "reset_rate": 0.005, "timeout_rate": 0.001, "malformed_rate": 0.005}'
  cat <<FLEET
{"seed": $SEED, "time_scale": $SCALE, "tls": true, "address_base": "127.23.0.1", "port": $BMC_PORT,
 "credentials": {"username": "root", "password": "0penBmc"}, "faults": $faults,
 "boot": {"service_url": "$PROVISIONER_URL"}, "racks": [$racks]}
FLEET
}

chaos_bmc_ids() { jq -r '.[].id' "$ROOT/bmcs.json"; }

# --- the monkey --------------------------------------------------------------------------------

# chaos_side_effect_holder: "INDEX STEP KIND" of a replica executing a side-effecting step now
# (up to 10 s of looking); nothing when none did.
chaos_side_effect_holder() {
  local deadline=$(($(date +%s) + 10)) found
  while [ "$(date +%s)" -lt "$deadline" ] && [ ! -e "$ROOT/monkey-stop" ]; do
    found=$(rack_api GET "/workflows/runs?state=running&limit=1000" 2>/dev/null |
      jq -r --argjson steps "$CHAOS_SIDE_EFFECT_STEPS" '[.items[] | select(.leased_by != "" and
        (.step as $s | $steps | index($s)))][0] // empty | "\(.leased_by | ltrimstr("replica-")) \(.step) \(.kind)"') || true
    [ -z "$found" ] || { echo "$found"; return 0; }
    sleep 0.05
  done
}

chaos_kill() { # K INDEX STEP KIND
  local pid
  pid=$(cat "$ROOT/replica$2.pid")
  kill -KILL "$pid" 2>/dev/null || return 0
  jq -n -c --argjson k "$1" --arg victim "replica-$2" --arg step "$3" --arg kind "$4" \
    --arg at "$(chaos_seconds_since "$MONKEY_START")" \
    '{k: $k, at_s: ($at | tonumber), victim: $victim, step: $step, run_kind: $kind,
      during_side_effect: ($step != "")}' >>"$ROOT/kills.jsonl"
}

chaos_restart_postgres() {
  pg_as_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -m fast -w -t 60 restart >/dev/null &&
    echo "{\"at_s\": $(chaos_seconds_since "$MONKEY_START")}" >>"$ROOT/pg-restarts.jsonl"
}

chaos_sessions_exhausted() { # BMC true|false
  sim_api PUT "/bmcs/$1/faults" "{\"sessions_exhausted\": $2}" >/dev/null &&
    echo "{\"bmc\": \"$1\", \"exhausted\": $2}" >>"$ROOT/session-faults.jsonl"
}

# The monkey: KILLS kills (seeded), every other one aimed at a side-effecting step; PostgreSQL
# restarted after half of them; with FAULTS one BMC's sessions exhausted over kills 1 to 3.
chaos_monkey() {
  RANDOM=$SEED
  local k holder gap_ms steps=$((KILLS > 3 ? KILLS : 3)) bmcs victim_bmc
  mapfile -t bmcs < <(chaos_bmc_ids)
  victim_bmc=${bmcs[$((RANDOM % ${#bmcs[@]}))]}
  for ((k = 1; k <= steps; k++)); do
    gap_ms=$((KILL_EVERY * 500 + (RANDOM * 32768 + RANDOM) % (KILL_EVERY * 1000)))
    sleep "$(awk -v m="$gap_ms" 'BEGIN {print m / 1000}')"
    [ ! -e "$ROOT/monkey-stop" ] || break
    [ -z "$FAULTS" ] || [ "$k" -ne 1 ] || chaos_sessions_exhausted "$victim_bmc" true
    [ -z "$FAULTS" ] || [ "$k" -ne 3 ] || chaos_sessions_exhausted "$victim_bmc" false
    [ "$k" -le "$KILLS" ] || continue
    holder=
    [ $((k % 2)) -eq 0 ] || holder=$(chaos_side_effect_holder)
    if [ -n "$holder" ]; then
      chaos_kill "$k" $holder
    else
      chaos_kill "$k" $((1 + RANDOM % 2)) "" ""
    fi
    [ -z "$PG_RESTART" ] || [ "$k" -ne $(((KILLS + 1) / 2)) ] || chaos_restart_postgres
  done
  [ -z "$FAULTS" ] || chaos_sessions_exhausted "$victim_bmc" false
}

chaos_start_monkey() {
  MONKEY_START=$(chaos_now)
  : >"$ROOT/kills.jsonl"
  : >"$ROOT/pg-restarts.jsonl"
  : >"$ROOT/session-faults.jsonl"
  (set +e; chaos_monkey) &
  MONKEY_PID=$!
  pids+=("$MONKEY_PID")
}

chaos_finish_monkey() {
  touch "$ROOT/monkey-stop"
  wait "$MONKEY_PID" 2>/dev/null || true
}

# --- the phases --------------------------------------------------------------------------------

# chaos_wait DESCRIPTION SECONDS COMMAND...: until COMMAND succeeds (every second), bounded.
chaos_wait() {
  local what=$1 deadline=$(($(date +%s) + $2))
  shift 2
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || { chaos_log "$what: not done in time"; return 1; }
    sleep 1
  done
}

chaos_open_runs() {
  rack_api GET "/workflows/runs?state=running&limit=1000" |
    jq --argjson kinds "$CHAOS_ENDING_KINDS" '[.items[] | select(.kind as $k | $kinds | index($k))] | length'
}

chaos_node_states() { # one "state count" line per state
  "$CTL" nodes list --all --json | jq -r '.items | group_by(.state)[] | "\(.[0].state) \(length)"'
}

chaos_not_ready() { # the nodes not ready, with their state's reason (why a verdict failed)
  "$CTL" nodes list --all --json |
    jq -c '[.items[] | select(.state != "ready") | {id, state, reason: .state_reason}]'
}

chaos_all_settled() { # EXPECTED: that many nodes ready or quarantined, and no run open
  # A quarantined node ends the wait (the verdict names it) instead of the phase's deadline.
  local states done open
  states=$(chaos_node_states 2>/dev/null) || return 1
  done=$(awk '$1 == "ready" || $1 == "quarantined" {n += $2} END {print n + 0}' <<<"$states")
  open=$(chaos_open_runs 2>/dev/null) || return 1
  [ "$done" -ge "$1" ] && [ "$open" -eq 0 ]
}

chaos_phase_bringup() {
  chaos_log "bring-up: $NODES nodes powered on"
  rack_power_on_bulk
  chaos_wait "bring-up" "${CHAOS_DEADLINE_S:-1800}" chaos_all_settled "$NODES"
}

chaos_campaign_settled() {
  local state
  state=$(rack_api GET "/campaigns/$1" 2>/dev/null | jq -r .state) || return 1
  case "$state" in completed | paused | cancelled) ;; *) return 1 ;; esac
  [ "$(chaos_open_runs 2>/dev/null)" = 0 ]
}

chaos_phase_campaign() {
  source scripts/lib/campaign_scenario.sh  # campaign_package, campaign_baseline, campaign_spec
  WORK=$ROOT
  chaos_log "campaign: BMC 24.10.1 and GPU 96.00.9A.00.01 on every ready node"
  ctl() { chaos_retry "$CTL" "$@"; }
  campaign_package dgx-bmc 23.11.22 bmc HostBMC immediate
  campaign_package dgx-bmc 24.10.1 bmc HostBMC immediate
  campaign_package dgx-gpu 96.00.89.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle multipart_push
  campaign_package dgx-gpu 96.00.9A.00.01 gpu HGX_FW_GPU_SXM ac_power_cycle multipart_push
  campaign_baseline "$ROOT/baseline.yaml" 24.10.1 96.00.9A.00.01
  ctl baseline apply "$ROOT/baseline.yaml" >/dev/null
  chaos_retry rack_profile --baseline dgx-h100-fleet
  campaign_spec "$ROOT/campaign.json" chaos 1
  ctl campaign create "$ROOT/campaign.json" >/dev/null || return 1
  # By name: a create retried after a lost answer has no id to print.
  CHAOS_CAMPAIGN=$(chaos_retry rack_api GET "/campaigns?limit=100" | jq -r '.items[] | select(.name == "chaos") | .id')
  [ -n "$CHAOS_CAMPAIGN" ] || { chaos_log "the campaign was not created"; return 1; }
  ctl campaign start "$CHAOS_CAMPAIGN" >/dev/null
  chaos_wait "the campaign" "${CHAOS_DEADLINE_S:-1800}" chaos_campaign_settled "$CHAOS_CAMPAIGN"
}

chaos_decommission_settled() {
  local d state
  for d in "$@"; do
    state=$(rack_api GET "/decommissions/$d" 2>/dev/null | jq -r .state) || return 1
    case "$state" in succeeded | failed) ;; *) return 1 ;; esac
  done
}

# The last node of each rack, then the next ones of the first rack, up to CHAOS_DECOMMISSIONS.
chaos_phase_decommission() {
  chaos_retry "$PROV" image promote wipe burnin 2026.12.1 --reason "decommission wipe" >/dev/null
  local serials serial node d
  serials=$(jq -r --argjson n "$CHAOS_DECOMMISSIONS" 'group_by(.rack) | map(last) | .[:$n][] |
    .identity.chassis_serial' "$ROOT/bmcs.json")
  CHAOS_DECOMMISSION_IDS=()
  for serial in $serials; do
    node=$(chaos_retry "$CTL" nodes list --all --json | jq -r --arg s "$serial" '.items[] | select(.chassis_serial == $s) | .id')
    d=$(chaos_retry "$CTL" --json nodes decommission "$node" --reason refresh | jq -r '.id // empty')
    [ -n "$d" ] || { chaos_log "the decommission of node $node was not started"; return 1; }
    CHAOS_DECOMMISSION_IDS+=("$d")
  done
  chaos_log "decommission: ${#CHAOS_DECOMMISSION_IDS[@]} nodes (${CHAOS_DECOMMISSION_IDS[*]})"
  chaos_wait "the decommissions" "${CHAOS_DEADLINE_S:-1800}" chaos_decommission_settled "${CHAOS_DECOMMISSION_IDS[@]}"
}

# --- the verdict -------------------------------------------------------------------------------

# Every BMC's side effects as one JSON array [{id, rack, effects}] (from the simulator).
chaos_effects() {
  local id
  for id in $(chaos_bmc_ids); do
    sim_api GET "/bmcs/$id" | jq -c '{id, rack, effects: .snapshot.sideEffects}'
  done | jq -s .
}

chaos_mark_effects() { chaos_effects >"$ROOT/effects-before.json"; }

# chaos_effects_since: this phase's side effects per BMC (those after the mark).
chaos_effects_since() {
  chaos_effects | jq --slurpfile before "$ROOT/effects-before.json" '
    ($before[0] | map({key: .id, value: (.effects | map(.seq) | max // 0)}) | from_entries) as $mark |
    map(.id as $id | .effects |= map(select(.seq > ($mark[$id] // 0))))'
}

# chaos_duplicates EFFECTS: [{bmc, kind, key, count}] for each effect of CHAOS_ONCE_KINDS asked
# more than once for the same key.
chaos_duplicates() {
  jq -c --argjson once "$CHAOS_ONCE_KINDS" '[.[] | .id as $bmc | .effects
    | map(select(.kind as $k | $once | index($k))) | group_by([.kind, .key])[]
    | select(length > 1) | {bmc: $bmc, kind: .[0].kind, key: .[0].key, count: length,
      at: map(.at)}]' <<<"$1"
}

# chaos_most_in_flight FILE: the most nodes whose updates overlapped, fleet-wide and per rack,
# from the BMCs' side (scripts/lib/bmc_in_flight.py), in one phase's side effects.
chaos_most_in_flight() {
  python3 scripts/lib/bmc_in_flight.py "$1" | jq -c '{global, per_rack}'
}

# chaos_expected PHASE: "" when the fleet is as the phase must leave it, else what is wrong.
chaos_expected() {
  local states ready open
  states=$(chaos_node_states)
  ready=$(awk '$1 == "ready" {print $2}' <<<"$states")
  open=$(chaos_open_runs)
  [ "$open" -eq 0 ] || echo "$open runs left open"
  case "$1" in
    bringup | campaign)
      [ "${ready:-0}" -eq "$NODES" ] ||
        echo "${ready:-0} of $NODES nodes ready ($(tr '\n' ' ' <<<"$states")); not ready: $(chaos_not_ready)" ;;
    decommission)
      local retired d state
      retired=$(awk '$1 == "retired" {print $2}' <<<"$states")
      [ "${retired:-0}" -eq "${#CHAOS_DECOMMISSION_IDS[@]}" ] ||
        echo "${retired:-0} nodes retired, expected ${#CHAOS_DECOMMISSION_IDS[@]} ($(tr '\n' ' ' <<<"$states"))"
      for d in "${CHAOS_DECOMMISSION_IDS[@]}"; do
        state=$(rack_api GET "/decommissions/$d" | jq -r .state)
        [ "$state" = succeeded ] || echo "decommission $d $state"
      done ;;
  esac
  if [ "$1" = campaign ]; then
    local cstate not_done
    cstate=$(rack_api GET "/campaigns/$CHAOS_CAMPAIGN" | jq -r .state)
    [ "$cstate" = completed ] || echo "campaign $cstate"
    not_done=$(rack_api GET "/campaigns/$CHAOS_CAMPAIGN/nodes?limit=1000" |
      jq -c '[.items[] | select(.state != "succeeded") | {node_id, state, reason}]')
    [ "$not_done" = "[]" ] || echo "campaign nodes not succeeded: $not_done"
  fi
}

# chaos_judge_phase PHASE START: the phase's figures and verdict, one JSON object.
chaos_judge_phase() {
  local effects duplicates problems in_flight='null' makespan
  makespan=$(chaos_seconds_since "$2")
  effects=$(chaos_effects_since)
  echo "$effects" >"$ROOT/effects-$1.json"
  duplicates=$(chaos_duplicates "$effects")
  problems=$(chaos_expected "$1" || true)
  if [ "$1" = campaign ]; then
    in_flight=$(chaos_most_in_flight "$ROOT/effects-$1.json") || in_flight='{"global": null, "per_rack": null}'
    jq -e '.global != null and .global <= 8 and .per_rack <= 2' <<<"$in_flight" >/dev/null ||
      problems+=$'\n'"caps exceeded on the BMCs' side: $in_flight (caps: 8, 2 per rack)"
  fi
  jq -n -c --arg phase "$1" --argjson makespan "$makespan" --argjson duplicates "$duplicates" \
    --arg problems "$problems" --argjson in_flight "$in_flight" --argjson effects "$effects" '
    {phase: $phase, makespan_s: $makespan, duplicates: $duplicates,
     problems: ($problems | split("\n") | map(select(. != ""))),
     side_effects: ([$effects[].effects[].kind] | group_by(.) | map({key: .[0], value: length}) | from_entries)}
    + (if $in_flight then {most_in_flight: $in_flight} else {} end)
    | . + {ok: ((.duplicates | length) == 0 and (.problems | length) == 0)}'
  [ -z "$problems" ] && [ "$duplicates" = "[]" ]
}

chaos_summary() { # STARTED ENDED PHASE_JSON...
  local started=$1 ended=$2
  shift 2
  local stats
  stats=$(sim_api GET /stats | jq -c .faults)
  printf '%s\n' "$@" | jq -s -c --argjson seed "$SEED" --argjson nodes "$NODES" --argjson racks "$RACKS" \
    --argjson asked "$KILLS" --argjson faults "$stats" --slurpfile kills "$ROOT/kills.jsonl" \
    --slurpfile pg "$ROOT/pg-restarts.jsonl" --slurpfile sessions "$ROOT/session-faults.jsonl" \
    --argjson makespan "$(awk -v a="$started" -v b="$ended" 'BEGIN {printf "%.1f", b - a}')" '
    {seed: $seed, nodes: $nodes, racks: $racks, makespan_s: $makespan,
     kills: ($kills | length), kills_asked: $asked,
     kills_during_side_effect: ([$kills[] | select(.during_side_effect)] | length),
     postgres_restarts: ($pg | length), sessions_exhausted: [$sessions[] | select(.exhausted) | .bmc],
     faults_injected: $faults,
     duplicates: ([.[].duplicates | length] | add // 0), phases: .}
    | . + {problems: (if .kills < $asked then ["only \(.kills) of \($asked) kills happened before the phases ended: lower --kill-every"] else [] end)}
    | . + {ok: (all(.phases[]; .ok) and (.problems | length) == 0)}'
}
