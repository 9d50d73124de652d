# The mechanics of a simulated rack bring-up, shared by scripts/demo and bench/rack_bringup/run:
# a signed burn-in image, the service, the operators' set-up, the BMC simulator, the purchase
# order and the power-on. Sourced; callers set PROV, CTL, SIM (binaries) and WORK (a folder).
# Needs curl and jq.

# rack_wait DESCRIPTION TRIES COMMAND...: polls COMMAND every 0.25 s, up to TRIES times.
rack_wait() {
  local what=$1 tries=$2
  shift 2
  for _ in $(seq 1 "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  echo "timed out waiting for $what" >&2
  return 1
}

# rack_signed_image TRUSTED_DIR: the burn-in image's artifacts, a key, a signed manifest
# ($WORK/burnin.json); the public key goes into TRUSTED_DIR.
rack_signed_image() {
  mkdir -p "$WORK/artifacts" "$1"
  head -c 4000000 /dev/urandom >"$WORK/artifacts/vmlinuz"
  head -c 12000000 /dev/urandom >"$WORK/artifacts/initrd.img"
  "$PROV" image keygen --out "$WORK/release" >/dev/null
  "$PROV" image manifest --name burnin --version 2026.12.1 --kernel "$WORK/artifacts/vmlinuz" \
    --initrd "$WORK/artifacts/initrd.img" --kernel-args "console=ttyS0,115200" \
    --out "$WORK/manifest.json" >/dev/null
  "$PROV" image sign --key "$WORK/release.key" --manifest "$WORK/manifest.json" \
    --out "$WORK/burnin.json" >/dev/null
  cp "$WORK/release.pub" "$1/"
}

# rack_start_service NAME LOG ARGS...: `provisioner serve ARGS` in the background, waits for
# /readyz on $PROVISIONER_URL (or the --listen in ARGS); sets RACK_PID.
rack_start_service() {
  local log=$2 listen
  shift 2
  "$PROV" serve "$@" >"$log" 2>&1 &
  RACK_PID=$!
  listen=$(printf '%s\n' "$@" | grep -A1 -- '^--listen$' | tail -1)
  if ! rack_wait "the service" 480 curl -fsS "http://$listen/readyz"; then
    tail -20 "$log" >&2
    return 1
  fi
}

# rack_api METHOD PATH [JSON]: the REST API with $PROVISIONER_TOKEN.
rack_api() {
  curl -fsS -X "$1" -H "Authorization: Bearer $PROVISIONER_TOKEN" \
    -H 'Content-Type: application/json' "$PROVISIONER_URL/api/v1$2" ${3:+--data "$3"}
}

# rack_operator_setup SITE RACK...: the image on the stable channel; the DGX H100 profile (BIOS,
# minimum BMC firmware, GPUs, burn-in plan); the site and its racks.
rack_operator_setup() {
  local site=$1
  shift
  "$PROV" image register "$WORK/burnin.json" --artifacts-dir "$WORK/artifacts" >/dev/null
  "$PROV" image promote stable burnin 2026.12.1 --reason "rack bring-up" >/dev/null
  # Test durations in real seconds (the agent divides them by the time scale).
  cat >"$WORK/plan.json" <<'PLAN'
{"tests": [{"name": "compute", "duration_s": 120}, {"name": "hbm_bandwidth", "duration_s": 120},
           {"name": "pcie_h2d", "duration_s": 30}, {"name": "pcie_d2h", "duration_s": 30},
           {"name": "peer_bandwidth", "duration_s": 60}]}
PLAN
  echo '{"ControlIommu": "Enable", "SriovSupport": "Enabled"}' >"$WORK/bios.json"
  # The simulated DGX BMC reports 23.11.21: one update per node, as after a long shipment.
  echo '[{"match": "HostBMC", "version": "23.11.22", "image_uri": "'"$PROVISIONER_URL"'/firmware/dgx-bmc-23.11.22.fwpkg"}]' \
    >"$WORK/firmware.json"
  rack_profile
  rack_api POST /sites "{\"name\":\"$site\",\"description\":\"hall 1\"}" >/dev/null
  local rack
  for rack in "$@"; do
    rack_api POST /racks "{\"site\":\"$site\",\"room\":\"hall-1\",\"row\":\"A\",\"name\":\"$rack\",\"u_height\":42}" >/dev/null
  done
}

# rack_profile [FLAGS...]: (re)sets the DGX H100 profile from the files rack_operator_setup
# wrote; extra flags (e.g. --baseline NAME) are added.
rack_profile() {
  "$CTL" profile set dgx-h100 --model DGXH100 --channel stable --expected-gpus 8 \
    --gpu-model H100 --plan "$WORK/plan.json" --bios "$WORK/bios.json" \
    --min-firmware "$WORK/firmware.json" "$@" >/dev/null
}

# rack_start_sim FLEET_JSON CONTROL_PORT: bmc-sim in the background; sets SIM_PID, writes
# $WORK/bmcs.json (every BMC's address, identity) once it listens.
rack_start_sim() {
  "$SIM" --fleet "$1" --control-port "$2" --state-file "$WORK/bmcs.json" \
    >/dev/null 2>"$WORK/bmc-sim.log" &
  SIM_PID=$!
  if ! rack_wait "bmc-sim" 1200 grep -q "bmc-sim ready" "$WORK/bmc-sim.log"; then
    tail "$WORK/bmc-sim.log" >&2
    return 1
  fi
}

# rack_import_po PO: the advance ship notice of every simulated BMC (serial, BMC MAC, factory
# credentials, the model the BMC reports, rack = the simulator's rack upper-cased, U) imported as
# purchase order PO.
rack_import_po() {
  {
    echo "serial,model,bmc_mac,factory_username,factory_password,rack,u,gpu_count,line_no"
    jq -r 'group_by(.rack)[] | to_entries[] | [.value.identity.chassis_serial, .value.identity.model,
            .value.identity.bmc_mac, "root", "0penBmc", (.value.rack | ascii_upcase),
            (2 + .key * 2), 8, 1] | @csv' "$WORK/bmcs.json" | tr -d '"'
  } >"$WORK/asn.csv"
  "$CTL" po import "$WORK/asn.csv" --po "$1" --vendor NVIDIA >"$WORK/po-import.txt"
}

# rack_power_on: every BMC takes a DHCP lease and dnsmasq's hook (scripts/dhcp) reports it, 16 at
# a time. Needs $PROVISIONER_TOKEN_FILE.
rack_power_on() {
  jq -r '.[] | "\(.identity.bmc_mac) \(.address) bmc-\(.id)"' "$WORK/bmcs.json" |
    PROVISIONER_HOOK_CONFIG=/nonexistent xargs -P 16 -L 1 scripts/dhcp/dnsmasq-lease-hook add
}

# rack_states: one line per node, its state.
rack_states() {
  "$CTL" nodes list --all --json | jq -r '.items[].state'
}

# rack_power_on_bulk: the same lease reports as rack_power_on, all from one curl process, 32 at
# once (a bench must not spend its CPU starting a shell and a curl per BMC).
rack_power_on_bulk() {
  (
    umask 077
    jq -r --arg url "$PROVISIONER_URL/api/v1/discovery/leases" --arg token "$PROVISIONER_TOKEN" '
      .[] | {action: "add", mac: .identity.bmc_mac, ip: .address, hostname: ("bmc-" + .id)}
      | "url = \($url | tojson)\nheader = \("Authorization: Bearer " + $token | tojson)\n" +
        "header = \"Content-Type: application/json\"\ndata = \(tojson | tojson)\n" +
        "fail\nsilent\nshow-error\noutput = \"/dev/null\""' "$WORK/bmcs.json" |
      sed '1!s/^url = /next\nurl = /' >"$WORK/leases.curl"
  )
  curl --parallel --parallel-max 32 -sS -K "$WORK/leases.curl"
}
