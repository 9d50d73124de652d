-- wrk script: GET /api/v1/assets/{serial} for random serials of the seeded fleet.
-- Half the lookups hit a node's chassis serial, half one of its 20 components. Answers other
-- than 2xx are counted by wrk ("Non-2xx") and make bench/asset_lookup/run fail.
local token = os.getenv("BENCH_TOKEN")
local nodes = tonumber(os.getenv("BENCH_NODES") or "100000")
local headers = { ["Authorization"] = "Bearer " .. token }

init = function(args)
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end

request = function()
  local n = math.random(1, nodes)
  local serial
  if math.random() < 0.5 then
    serial = string.format("BN%07d", n)
  else
    serial = string.format("BC%07d%02d", n, math.random(1, 20))
  end
  return wrk.format("GET", "/api/v1/assets/" .. serial, headers)
end
