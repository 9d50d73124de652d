#!/usr/bin/python3
"""The peer tool: Debian's python3-sushy (OpenStack's Redfish library) crawling the same
simulated fleet for the same resources, with the same parallelism: every BMC at once, at most
PER_BMC requests in flight to each (a thread per BMC, members fetched by a pool of PER_BMC
threads). sushy's resource classes are used where it models the resource (systems, processors,
ethernet interfaces, storage and drives, chassis, power, thermal, managers, firmware inventory);
the rest (memory, PCIe devices, network adapters) is read through sushy's connector following
the same links. Prints one JSON line of figures.

    sushy_crawl.py ENDPOINTS_FILE PASSWORD [PER_BMC]
"""
import concurrent.futures
import json
import os
import resource
import sys
import threading
import time
import warnings

# requests lets REQUESTS_CA_BUNDLE override a session's verify=False; the simulated BMCs are
# self-signed, so drop it before requests is imported.
for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
    os.environ.pop(name, None)

import sushy  # noqa: E402
import urllib3  # noqa: E402

urllib3.disable_warnings()
warnings.filterwarnings("ignore")

REQUESTS = 0
LOCK = threading.Lock()


def counting(response):
    global REQUESTS
    with LOCK:
        REQUESTS += 1


def member_paths(conn, path):
    body = conn.get(path).json()
    paths = [m["@odata.id"] for m in body.get("Members", [])]
    seen = {path}
    # Each page once: a recorded page can name itself as the next one (our crawl does the same).
    while body.get("Members@odata.nextLink") and body["Members@odata.nextLink"] not in seen:
        seen.add(body["Members@odata.nextLink"])
        body = conn.get(body["Members@odata.nextLink"]).json()
        paths += [m["@odata.id"] for m in body.get("Members", [])]
    return sorted(set(paths))


def raw_members(conn, pool, holder, key):
    link = holder.get(key, {}).get("@odata.id")
    if not link:
        return []
    return list(pool.map(lambda p: conn.get(p).json(), member_paths(conn, link)))


def crawl_raw_system(conn, pool, raw):
    """A system sushy's model refuses (the DGX's HGX baseboard has no Actions): the same
    resources through sushy's connector."""
    return {"serial": raw.get("SerialNumber"),
            "processors": [p.get("Model") for p in raw_members(conn, pool, raw, "Processors")],
            "dimms": len(raw_members(conn, pool, raw, "Memory")),
            "nics": len(raw_members(conn, pool, raw, "EthernetInterfaces"))}


def crawl_system(root, pool, system_path):
    conn = root._conn
    raw = conn.get(system_path).json()
    try:
        system = root.get_system(system_path)
    except sushy.exceptions.MissingAttributeError:
        return crawl_raw_system(conn, pool, raw)
    found = {"serial": system.serial_number}
    processors = system.processors
    found["processors"] = list(pool.map(lambda i: processors.get_member(i).model,
                                        processors.members_identities))
    interfaces = system.ethernet_interfaces
    found["nics"] = list(pool.map(lambda i: interfaces.get_member(i).mac_address,
                                  interfaces.members_identities))
    found["dimms"] = len(raw_members(conn, pool, raw, "Memory"))
    if raw.get("Storage"):
        for storage in system.storage.get_members():
            found.setdefault("drives", []).extend(d.serial_number for d in storage.drives)
    return found


def crawl_chassis(root, pool, chassis_path):
    chassis = root.get_chassis(chassis_path)
    conn = chassis._conn
    raw = conn.get(chassis_path).json()
    found = {"serial": chassis.serial_number}
    if raw.get("Power"):
        found["psus"] = len(chassis.power.power_supplies or [])
    if raw.get("Thermal"):
        found["temperatures"] = len(chassis.thermal.temperatures or [])
    found["pcie"] = [d.get("PCIeInterface", {}).get("LanesInUse")
                     for d in raw_members(conn, pool, raw, "PCIeDevices")]
    found["adapters"] = len(raw_members(conn, pool, raw, "NetworkAdapters"))
    return found


def crawl_bmc(endpoint, password, per_bmc):
    root = sushy.Sushy(endpoint["base_url"] + "/redfish/v1", username=endpoint["username"],
                       password=password, verify=False)
    with concurrent.futures.ThreadPoolExecutor(per_bmc) as pool:
        systems = root.get_system_collection().members_identities
        chassis = root.get_chassis_collection().members_identities
        managers = root.get_manager_collection().members_identities
        result = {
            "systems": [crawl_system(root, pool, s) for s in systems],
            "chassis": [crawl_chassis(root, pool, c) for c in chassis],
            "managers": list(pool.map(lambda m: root.get_manager(m).firmware_version, managers)),
        }
        inventory = root.get_update_service().firmware_inventory
        result["firmware"] = list(pool.map(lambda i: inventory.get_member(i).version,
                                           inventory.members_identities))
    return result


def main():
    endpoints = json.load(open(sys.argv[1]))
    password = sys.argv[2]
    per_bmc = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    # sushy's connector counts nothing itself: wrap the requests session of each connector.
    original = sushy.connector.Connector._op

    def op(self, *args, **kwargs):
        counting(None)
        return original(self, *args, **kwargs)

    sushy.connector.Connector._op = op
    started = time.monotonic()
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(len(endpoints)) as pool:
        futures = [pool.submit(crawl_bmc, e, password, per_bmc) for e in endpoints]
        for future in futures:
            try:
                future.result()
            except Exception as error:  # report, keep measuring the others
                failures += 1
                if failures <= 3:
                    print("sushy crawl failed:", repr(error)[:300], file=sys.stderr)
    wall = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"tool": "sushy " + getattr(sushy, "__version__", "4.3.3"),
                      "bmcs": len(endpoints), "failures": failures, "wall_s": wall,
                      "requests_total": REQUESTS,
                      "requests_per_bmc": REQUESTS / len(endpoints),
                      "cpu_s": usage.ru_utime + usage.ru_stime,
                      "peak_rss_mb": usage.ru_maxrss / 1024.0}))


if __name__ == "__main__":
    main()
