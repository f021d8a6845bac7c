#!/usr/bin/env python3
"""link_anchor.py BYTES ADDR0 ADDR1 ...: what plain TCP carries over the simulated links, the
anchor of the cluster bench (bench/cluster_schedules.sh). Run as one job of one rank per node
through scripts/cluster.sh (Open MPI's launcher gives each process OMPI_COMM_WORLD_RANK;
ADDRi is node i's address). Every node sends BYTES to the next node and receives BYTES from
the previous one at the same time (a ring: each link carries one stream each way, as under a
step order), over one TCP connection each way, in 1 MiB writes. Prints one JSON line per
node: seconds from the common start to the last byte received, and Gbit/s per direction."""
import json, os, socket, sys, threading, time

PORT = 47311

def main():
    size = int(sys.argv[1])
    addrs = sys.argv[2:]
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    nodes = len(addrs)
    if nodes < 2 or rank >= nodes:
        sys.exit("link_anchor.py: one rank per node, and the address of each node")
    listener = socket.create_server((addrs[rank], PORT))
    out = None
    deadline = time.time() + 30
    while out is None:  # the next node may not listen yet
        try:
            out = socket.create_connection((addrs[(rank + 1) % nodes], PORT), timeout=5)
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.05)
    inc, _ = listener.accept()
    out.settimeout(None)
    # A common start: the machine's clock is every node's clock.
    start = float(int(time.time()) + 2)
    time.sleep(max(0.0, start - time.time()))
    received = [0, 0.0]

    def receive():
        while received[0] < size:
            b = inc.recv(1 << 20)
            if not b:
                break
            received[0] += len(b)
        received[1] = time.time()

    t = threading.Thread(target=receive)
    t.start()
    chunk = memoryview(bytes(1 << 20))
    sent = 0
    while sent < size:
        sent += out.send(chunk[: min(len(chunk), size - sent)])
    t.join()
    out.close()
    seconds = received[1] - start
    print(json.dumps({"node": rank, "bytes": size, "received": received[0], "seconds": seconds,
                      "gbit_per_s": size * 8 / seconds / 1e9}), flush=True)
    if received[0] != size:
        sys.exit("link_anchor.py: node %d received %d of %d bytes" % (rank, received[0], size))

main()
