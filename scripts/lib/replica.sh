# scripts/demo --kill-replica: a second `provisioner serve` replica on the same database and
# state folder, and a SIGKILL of the replica that holds a given run while the simulated BMC is in
# the middle of a task; the simulator's own task list per BMC then proves nothing ran twice.
# Shared by scripts/lib/decommission_scenario.sh and scripts/lib/campaign_scenario.sh. Needs the
# demo's rack_api, sim_api, ctl, WORK, SERVICE_ARGS, svc and svc2 (sourced by scripts/demo).

# rack_node_id BMC_ID: the inventory id of the node behind simulated BMC BMC_ID.
rack_node_id() {
  local serial
  serial=$(jq -r --arg id "$1" '.[] | select(.id == $id) | .identity.chassis_serial' "$WORK/bmcs.json")
  ctl nodes list --all --json | jq -r --arg s "$serial" '.items[] | select(.chassis_serial == $s) | .id'
}

# replica_start_second: replica-2 on the same database and state (the demo gave every replica
# --workflow-lease-seconds 6). Sets svc2 and REPLICA2_URL.
replica_start_second() {
  local port
  port=$(pg_free_port)
  rack_start_service svc2 "$WORK/service-2.log" "${SERVICE_ARGS[@]}" --listen "127.0.0.1:$port" \
    --replica-name replica-2 || return 1
  svc2=$RACK_PID
  REPLICA2_URL="http://127.0.0.1:$port"
  echo "replica-2 on $REPLICA2_URL: the same database and state folder, runs leased for 6 s"
}

# replica_wait_bmc_task BMC_ID SELECT: until the simulated BMC has a task for which the jq
# condition SELECT holds (e.g. '.kind == "secureErase"'); prints that task's id (bounded: 300 s).
replica_wait_bmc_task() {
  local deadline=$(($(date +%s) + 300)) id
  while :; do
    id=$(sim_api GET "/bmcs/$1" | jq -r "[.snapshot.tasks[] | select($2)][0].id // empty")
    [ -z "$id" ] || { echo "$id"; return 0; }
    [ "$(date +%s)" -lt "$deadline" ] || { echo "no task ($2) ran on $1" >&2; return 1; }
    sleep 0.1
  done
}

# replica_kill_holder RUN_KIND SUBJECT: SIGKILLs the replica that holds the run of RUN_KIND for
# SUBJECT (a run holds its lease only while a replica executes one of its steps: this looks for
# up to 10 s, then takes replica-1); the API moves to the other one. Prints which it killed.
replica_kill_holder() {
  local owner victim deadline=$(($(date +%s) + 10))
  while :; do
    owner=$(rack_api GET "/workflows/runs?kind=$1&limit=200" |
      jq -r --arg s "$2" '[.items[] | select(.subject == $s)][0].leased_by // empty')
    [ -z "$owner" ] && [ "$(date +%s)" -lt "$deadline" ] || break
    sleep 0.05
  done
  if [ "$owner" = replica-2 ]; then
    victim=$svc2 svc2=
  else
    victim=$svc svc=
    PROVISIONER_URL=$REPLICA2_URL
  fi
  kill -KILL "$victim"
  wait "$victim" 2>/dev/null || true
  if [ -n "$owner" ]; then
    echo "SIGKILL to $owner (pid $victim), which held the $1 run of $2; the API is now $PROVISIONER_URL"
  else
    echo "SIGKILL to replica-1 (pid $victim); no replica held the $1 run of $2 at that moment; the API is now $PROVISIONER_URL"
  fi
}

# sim_tasks_once BMC_ID KIND [MIN] [SKIP]: every task of KIND the BMC ran (after its first SKIP
# ones, default 0) went to its own (target, version): nothing was done twice. Prints how many
# there were; an error on a repeat or when there were fewer than MIN (default 1).
sim_tasks_once() {
  sim_api GET "/bmcs/$1" | jq -e -r --arg k "$2" --argjson min "${3:-1}" --argjson skip "${4:-0}" \
    '[.snapshot.tasks[] | select(.kind == $k)][$skip:] | [.[] | [.targets[0], (.version // "")]] | group_by(.)
    | if length >= $min and (map(length) | max // 1) == 1 then length else error("ran twice") end'
}

# sim_tasks BMC_ID KIND [SKIP]: the BMC's tasks of KIND (after its first SKIP), one line.
sim_tasks() {
  sim_api GET "/bmcs/$1" | jq -c --arg k "$2" --argjson skip "${3:-0}" \
    '[.snapshot.tasks[] | select(.kind == $k)][$skip:] | map({target: .targets[0], version, method, state})'
}

# sim_task_count BMC_ID KIND: how many tasks of KIND the BMC has run so far.
sim_task_count() {
  sim_api GET "/bmcs/$1" | jq --arg k "$2" '[.snapshot.tasks[] | select(.kind == $k)] | length'
}
