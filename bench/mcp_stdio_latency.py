#!/usr/bin/env python3
"""What `editgate mcp` (the stdio bridge) adds to a call: the same
2025-11-25 session's requests sent straight to the gateway's POST /mcp on a
kept-alive connection (a raw socket, so the client costs about what a pipe
costs), and through the bridge's stdin/stdout, alternately,
from one Python client (so the client's own cost is in both columns).

Usage: bench/mcp_stdio_latency.py EDITGATE_BINARY [--runs N]
Starts `editgate serve --port 0` on a fresh workspace; prints p50/p99 per
path and the difference of the medians.
"""
import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import tempfile
import time


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def places(editgate, root):
    """What `editgate where` names for the workspace at `root`: absolute paths."""
    out = subprocess.run([editgate, "where", "--root", root, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("editgate")
    ap.add_argument("--runs", type=int, default=2000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["git", "init", "-q", root], check=True)
        where = places(a.editgate, root)
        gw = subprocess.Popen([a.editgate, "serve", "--port", "0", "--root", root],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not os.path.exists(where["port"]):
                time.sleep(0.05)
            port = int(open(where["port"]).read())
            cookie = open(where["cookie"]).read().strip()
            bridge = subprocess.Popen([a.editgate, "mcp", "--root", root], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            conn = http.client.HTTPConnection("127.0.0.1", port)
            headers = {"Authorization": "Bearer " + cookie, "Content-Type": "application/json",
                       "Accept": "application/json, text/event-stream"}
            raw = socket.create_connection(("127.0.0.1", port))
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def direct(msg):
                """The request as the bridge sends it, on a raw kept-alive
                socket: the client's cost as small as a pipe's."""
                body = json.dumps(msg).encode()
                head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port + "".join(
                    "%s: %s\r\n" % kv for kv in headers.items()) + "Content-Length: %d\r\n\r\n" % len(body)
                raw.sendall(head.encode() + body)
                data = b""
                while b"\r\n\r\n" not in data:
                    data += raw.recv(65536)
                top, rest = data.split(b"\r\n\r\n", 1)
                length = int([l for l in top.split(b"\r\n") if l.lower().startswith(b"content-length:")][0][15:])
                while len(rest) < length:
                    rest += raw.recv(65536)
                return rest

            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "bench", "version": "1"}}}
            conn.request("POST", "/mcp", json.dumps(init), headers)
            r = conn.getresponse()
            r.read()
            headers["Mcp-Session-Id"] = r.getheader("Mcp-Session-Id")
            headers["MCP-Protocol-Version"] = "2025-11-25"

            def through_bridge(msg):
                bridge.stdin.write((json.dumps(msg) + "\n").encode())
                bridge.stdin.flush()
                return bridge.stdout.readline()

            through_bridge(init)
            times = {"direct": [], "bridge": []}
            for i in range(a.runs + 100):
                msg = {"jsonrpc": "2.0", "id": i + 1, "method": "ping"}
                for name, fn in (("direct", direct), ("bridge", through_bridge)):
                    t0 = time.perf_counter_ns()
                    fn(msg)
                    if i >= 100:  # warm-up
                        times[name].append((time.perf_counter_ns() - t0) / 1000)
            for name, xs in times.items():
                print("%-7s ping  p50 %7.1f us  p99 %7.1f us  (%d runs)" % (name, percentile(xs, 50),
                                                                         percentile(xs, 99), len(xs)))
            print("bridge adds %.1f us at p50" % (percentile(times["bridge"], 50) - percentile(times["direct"], 50)))
            bridge.stdin.close()
            bridge.wait(5)
        finally:
            gw.send_signal(signal.SIGTERM)
            gw.wait(15)


if __name__ == "__main__":
    main()
