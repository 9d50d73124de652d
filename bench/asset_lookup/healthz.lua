-- wrk script: the lower bound of one request through the same HTTP stack, without the database.
request = function()
  return wrk.format("GET", "/healthz")
end
