# scripts/demo --scenario decommission: after the rack's bring-up, two ready nodes are
# decommissioned (docs/decommission.md). Sourced by scripts/demo (needs its ctl, rack_api,
# sim_api, say, WORK, NODES, MISMATCH, SLOW, PROV and the running service and simulator).
#
# 1. One node leaves for a hardware refresh: drained, booted into the `wipe` channel, its GPUs'
#    HBM wiped and verified on the device, its drives sanitized and read back, BIOS and BMC
#    accounts reset; it ends `retired` with a signed certificate, which the demo then verifies
#    with plain OpenSSL against the public key the service publishes.
# 2. The other goes back under RMA, but the verify pass on one of its GPUs finds stuck bits: it
#    ends `decommission_failed` naming that GPU's serial, and nothing is signed. The asset team
#    then records the GPU's RMA, and the asset lookup shows it.
# 3. With --kill-replica, a second replica runs on the same database and state folder; the RMA
#    node goes first, then the refresh node, and while its platform is being reset (after the
#    wipe report) the replica holding its decommission is killed with SIGKILL. The other replica
#    resumes it (after the lease, 6 s): the host is not booted again (no second wipe), one wipe
#    report, one certificate.
# Exit 1 unless the outcomes are exactly these. The replica helpers: scripts/lib/replica.sh.

# decommission_wait ID: until the decommission settles (bounded); prints its final state.
decommission_wait() {
  local deadline=$(($(date +%s) + ${DEMO_DECOMMISSION_DEADLINE_S:-600})) state
  while :; do
    state=$(rack_api GET "/decommissions/$1" | jq -r .state)
    case "$state" in succeeded | failed) echo "$state"; return 0 ;; esac
    [ "$(date +%s)" -lt "$deadline" ] || { echo "decommission $1 did not settle in time" >&2; return 1; }
    sleep 2
  done
}

# decommission_kill_mid_reset DECOMMISSION_ID BMC_ID: once the wipe report is in and the run is
# resetting the platform (BIOS to defaults, the service's BMC account removed; the BMC answers
# slowly, so this takes about a second), SIGKILLs the replica holding the run
# (scripts/lib/replica.sh); the API moves to the other. A DGX H100's BMC offers no
# Drive.SecureErase, so its drives are erased in band by the agent; this is the first step after
# the wipe that acts on the node. Sets BOOTS_AT_KILL.
decommission_kill_mid_reset() {
  local deadline=$(($(date +%s) + 300)) run
  until run=$(decommission_run "$1") && [ "$(jq -r .step <<<"$run")" = platform_reset ] &&
    [ -n "$(jq -r '.leased_by // empty' <<<"$run")" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "decommission $1 never reset $2's platform" >&2; return 1; }
    case "$(jq -r .state <<<"$run")" in
      succeeded | failed | cancelled) echo "decommission $1 ended before the kill: $run" >&2; return 1 ;;
    esac
    sleep 0.05
  done
  echo -n "$2's platform is being reset: "
  replica_kill_holder node_decommission "decommission:$1"
  BOOTS_AT_KILL=$(sim_api GET "/bmcs/$2" | jq -r .snapshot.host.boots)
}

# decommission_run DECOMMISSION_ID: the decommission's workflow run (step, state, leased_by).
decommission_run() {
  rack_api GET "/workflows/runs?kind=node_decommission&limit=200" |
    jq -e -c --arg s "decommission:$1" '.items[] | select(.subject == $s)'
}

decommission_scenario() {
  local fail=0 n=1 m pass_bmc fail_bmc pass_node fail_node stuck_gpu=2 stuck_serial
  while [ "$n" -eq "$MISMATCH" ] || [ "$n" -eq "$SLOW" ]; do n=$((n + 1)); done
  m=$((n + 1))
  while [ "$m" -eq "$MISMATCH" ] || [ "$m" -eq "$SLOW" ]; do m=$((m + 1)); done
  pass_bmc=$(printf 'r01-n%02d' "$n")
  fail_bmc=$(printf 'r01-n%02d' "$m")
  pass_node=$(rack_node_id "$pass_bmc")
  fail_node=$(rack_node_id "$fail_bmc")
  stuck_serial=$(jq -r --arg id "$fail_bmc" --argjson g "$stuck_gpu" '.[] | select(.id == $id) | .identity.gpu_serials[$g]' "$WORK/bmcs.json")
  [ -n "$pass_node" ] && [ -n "$fail_node" ] || { echo "the two ready nodes were not found" >&2; return 1; }

  say "The wipe image: the signed agent image on the catalog's 'wipe' channel"
  "$PROV" image promote wipe burnin 2026.12.1 --reason "decommission wipe" >/dev/null
  sim_api PUT "/bmcs/$fail_bmc/faults" \
    "{\"gpu_faults\": [{\"gpu\": $stuck_gpu, \"kind\": \"stuck_bits\", \"count\": 3}]}" >/dev/null
  echo "$fail_bmc's GPU $stuck_gpu ($stuck_serial) has 3 stuck bits in its HBM"

  say "Decommission: node $pass_node for a refresh, node $fail_node back under RMA"
  local d_pass d_fail s_pass s_fail
  if [ -n "${KILL_REPLICA:-}" ]; then
    replica_start_second || return 1
    # One at a time: the RMA node's agent reports to replica-1, which is then killed.
    d_fail=$(ctl --json nodes decommission "$fail_node" --reason rma | jq -r '.id // empty') || true
    [ -n "$d_fail" ] || { echo "the decommission of node $fail_node was not started" >&2; return 1; }
    s_fail=$(decommission_wait "$d_fail") || fail=1
  fi
  # The BMC answers each request after about 60 ms (7 simulated seconds at time scale 120, inside
  # the DGX's 30 s session time-out), so its platform reset (some 20 requests) lasts a second.
  [ -z "${KILL_REPLICA:-}" ] || sim_api PUT "/bmcs/$pass_bmc/faults" '{"latency_ms": 60}' >/dev/null
  d_pass=$(ctl --json nodes decommission "$pass_node" --reason refresh | jq -r '.id // empty') || true
  [ -n "${KILL_REPLICA:-}" ] ||
    d_fail=$(ctl --json nodes decommission "$fail_node" --reason rma | jq -r '.id // empty') || true
  [ -n "$d_pass" ] && [ -n "$d_fail" ] || { echo "the decommissions were not started" >&2; return 1; }
  echo "decommission $d_pass (node $pass_node), decommission $d_fail (node $fail_node)"
  if [ -n "${KILL_REPLICA:-}" ]; then
    decommission_kill_mid_reset "$d_pass" "$pass_bmc" || return 1
  fi
  s_pass=$(decommission_wait "$d_pass") || fail=1
  [ -n "${KILL_REPLICA:-}" ] || s_fail=$(decommission_wait "$d_fail") || fail=1
  ctl decommissions show "$d_pass" || true
  ctl decommissions show "$d_fail" || true

  say "The certificate of decommission $d_pass, verified offline with plain OpenSSL"
  local cert dir="$WORK/certificate"
  cert=$(rack_api GET "/decommissions/$d_pass" | jq -r '.certificate_id // empty')
  if [ -n "$cert" ]; then
    mkdir -p "$dir"
    ctl certificates get "$cert" --out "$dir" >/dev/null || fail=1
    # The key as anyone gets it: the unauthenticated endpoint, no token.
    curl -fsS "$PROVISIONER_URL/api/v1/certificates/public-key" >"$dir/key.pem" || fail=1
    jq -c '{node, devices: [.devices[] | {serial, media_type, method, technique}]}' \
      "$dir/certificate-$cert.json" | head -c 700
    echo
    echo "\$ openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in certificate-$cert.json -sigfile certificate-$cert.sig"
    (cd "$dir" && openssl pkeyutl -verify -pubin -inkey key.pem -rawin \
      -in "certificate-$cert.json" -sigfile "certificate-$cert.sig") || fail=1
  else
    echo "decommission $d_pass has no certificate" >&2
    fail=1
  fi

  say "Asset team: the GPU with stuck bits goes back to the vendor (RMA)"
  ctl asset disposition "$stuck_serial" --rma --ticket RMA-2026-1204 --vendor NVIDIA --shipped 2026-12-04 || fail=1
  ctl asset show "$stuck_serial" || fail=1

  # The outcomes, checked.
  local pass_state fail_state failure certs disposition
  pass_state=$(rack_api GET "/nodes/$pass_node" | jq -r .state)
  fail_state=$(rack_api GET "/nodes/$fail_node" | jq -r .state)
  failure=$(rack_api GET "/decommissions/$d_fail" | jq -c '.failure')
  certs=$(rack_api GET "/nodes/$fail_node/certificates" | jq '.items | length')
  disposition=$(rack_api GET "/assets/$stuck_serial" | jq -r '.disposition.disposition // empty')
  [ "$s_pass" = succeeded ] && [ "$pass_state" = retired ] ||
    { echo "decommission $d_pass is $s_pass, node $pass_node $pass_state: expected succeeded, retired" >&2; fail=1; }
  [ "$s_fail" = failed ] && [ "$fail_state" = decommission_failed ] ||
    { echo "decommission $d_fail is $s_fail, node $fail_node $fail_state: expected failed, decommission_failed" >&2; fail=1; }
  grep -q "$stuck_serial" <<<"$failure" || { echo "the failure does not name GPU $stuck_serial: $failure" >&2; fail=1; }
  [ "$certs" = 0 ] || { echo "node $fail_node has $certs certificate(s): none expected" >&2; fail=1; }
  [ "$disposition" = rma ] || { echo "GPU $stuck_serial shows disposition '$disposition', expected rma" >&2; fail=1; }
  if [ -n "${KILL_REPLICA:-}" ]; then
    local boots_now wipe_reports certs_pass
    boots_now=$(sim_api GET "/bmcs/$pass_bmc" | jq -r .snapshot.host.boots)
    wipe_reports=$(rack_api GET "/decommissions/$d_pass" | jq '[.evidence[]? | select(.name | startswith("agent_wipe_report"))] | length')
    [ "$boots_now" = "$BOOTS_AT_KILL" ] ||
      { echo "$pass_bmc booted $BOOTS_AT_KILL times before the kill and $boots_now after: wiped again" >&2; fail=1; }
    [ "$wipe_reports" = 1 ] || { echo "decommission $d_pass holds $wipe_reports wipe reports: one expected" >&2; fail=1; }
    certs_pass=$(rack_api GET "/nodes/$pass_node/certificates" | jq '.items | length')
    [ "$certs_pass" = 1 ] || { echo "node $pass_node has $certs_pass certificates: one expected" >&2; fail=1; }
    [ "$fail" -eq 0 ] && echo "After the SIGKILL: the other replica finished the reset and signed once; $pass_bmc not booted again (no second wipe), one wipe report, one certificate."
  fi
  [ "$fail" -eq 0 ] && echo && echo "Scenario as expected: node $pass_node retired with a verified certificate; node $fail_node decommission_failed naming GPU $stuck_serial, no certificate; its RMA recorded."
  return "$fail"
}
