#!/usr/bin/env python3
"""A TCP forwarder in front of the service's replicas, as a load balancer would be: each new
connection goes to the next replica that accepts it (round robin, skipping one that refuses), and
a connection whose replica dies is closed, so the client reconnects to another. The chaos harness
(bench/chaos/run) points the hosts, the agents and provisionerctl at it.

Usage: forwarder.py LISTEN_PORT BACKEND_PORT... (all on 127.0.0.1)
"""
import asyncio
import itertools
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            writer.close()
        except OSError:
            pass


async def connect_any(ports, start):
    for port in itertools.islice(itertools.cycle(ports), start, start + len(ports)):
        try:
            return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
        except (OSError, asyncio.TimeoutError):
            continue
    return None


def main():
    if len(sys.argv) < 3 or not all(a.isdigit() for a in sys.argv[1:]):
        sys.exit("usage: forwarder.py LISTEN_PORT BACKEND_PORT...")
    listen, ports = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
    turn = itertools.count()

    async def handle(client_reader, client_writer):
        backend = await connect_any(ports, next(turn) % len(ports))
        if backend is None:
            client_writer.close()
            return
        backend_reader, backend_writer = backend
        await asyncio.gather(pipe(client_reader, backend_writer),
                             pipe(backend_reader, client_writer))

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", listen, backlog=1024)
        print(f"forwarding 127.0.0.1:{listen} to {ports}", flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
