#!/usr/bin/env python3
"""MCP clients that never read (raw HTTP POST /mcp on 127.0.0.1): each asks
for an edit_check of many failing blocks with a progress token, so every
block's result is a progress notification, and never reads its socket.
The gateway's peak memory (VmHWM) stays bounded: a call keeps the first
MiB of its output for its result and counts the rest, and a stream skips
progress while a MiB of it is unsent. Then a client that reads gets its
result, whole but for the parts counted as dropped, and some progress.

Usage: mcp_unread.py EDITGATE_BINARY [--clients N] [--blocks N] [--max-mb MB]
Prints the peak RSS; exit 0 when under --max-mb (0: only measure).
"""
import argparse
import http.client
import json
import os
import socket
import sys
import time

from seed_client import gateway, places

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


def blocks(n):
    one = "a.txt\n```\n««« EDIT\nnot in the file %d\n═══════ REPL\nx\n»»» EDIT END\n```\n"
    return "".join(one % i for i in range(n))


def request(port, cookie, text, token):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "edit_check", "arguments": {"text": text},
                                  "_meta": {**META, "progressToken": token}}}).encode()
    head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            "MCP-Protocol-Version: %s\r\nMcp-Method: tools/call\r\nMcp-Name: edit_check\r\n"
            "Content-Length: %d\r\n\r\n") % (port, cookie, MODERN, len(body))
    return head.encode() + body


def never_reading(port, data):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
    s.connect(("127.0.0.1", port))
    s.sendall(data)
    return s


def status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024  # MiB
    raise AssertionError(key)


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def settle(pid, seconds):
    """Waits until the gateway has used no CPU for a second (its calls are
    done, or wait on sockets nobody reads), at most `seconds`."""
    deadline = time.monotonic() + seconds
    last, still = cpu_ticks(pid), 0
    while time.monotonic() < deadline and still < 5:
        time.sleep(0.2)
        now = cpu_ticks(pid)
        still = still + 1 if now == last else 0
        last = now


def post(port, cookie, body, method, name):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("POST", "/mcp", body,
              {"Authorization": "Bearer " + cookie, "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN,
               "Mcp-Method": method, "Mcp-Name": name})
    r = c.getresponse()
    data = r.read().decode()
    c.close()
    if r.getheader("Content-Type", "").startswith("text/event-stream"):
        return [json.loads(line[6:]) for line in data.split("\n") if line.startswith("data: ")]
    return [json.loads(data)]


def read_call(port, cookie, text):
    """A reading client's edit_check: (its progress notifications, its whole
    structured result, read back from its resource when too large to send)."""
    msgs = post(port, cookie, request(port, cookie, text, "reader").split(b"\r\n\r\n", 1)[1], "tools/call",
                "edit_check")
    res = msgs[-1]["result"]["structuredContent"]
    if res.get("truncated"):
        body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                           "params": {"uri": res["resource"], "_meta": META}})
        got = post(port, cookie, body, "resources/read", res["resource"])
        res = json.loads(got[-1]["result"]["contents"][0]["text"])
    return len(msgs) - 1, res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--blocks", type=int, default=30000)
    ap.add_argument("--max-mb", type=int, default=280)  # main: 376 MiB; bounded: 193 MiB
    a = ap.parse_args()
    text = blocks(a.blocks)
    with gateway(a.binary, {"a.txt": "hello\n"}, ["--no-node"]) as (root, server, cookie):
        cookie = cookie.strip()
        port, pid = server["port"], server["pid"]
        start = status(pid, "VmHWM")
        data = request(port, cookie, text, "unread")
        socks = [never_reading(port, data) for _ in range(a.clients)]
        try:
            settle(pid, 120)
            peak = status(pid, "VmHWM")
            print("%d never-reading clients, edit_check of %d failing blocks each: peak RSS %d MiB (at start %d MiB)"
                  % (a.clients, a.blocks, peak, start))
        finally:
            for s in socks:
                s.close()
        # A client that reads: every block's progress, and a result that
        # counts what it did not keep.
        progress, res = read_call(port, cookie, text)
        # The kept block results are in `blocks`; the count of the rest is out's last part.
        out, kept = res.get("out", []), res.get("blocks", [])
        dropped = out[-1] if out and "parts_dropped" in out[-1] else None
        print("a reading client: %d progress notifications, counts %s, %d blocks kept, the last part %s; peak RSS %d MiB"
              % (progress, res.get("counts"), len(kept), dropped, status(pid, "VmHWM")))
        if a.max_mb:
            assert peak <= a.max_mb, "peak RSS %d MiB is over %d MiB" % (peak, a.max_mb)
            assert 0 < progress < a.blocks and res["counts"]["failed"] == a.blocks, (progress, res.get("counts"))
            assert dropped and dropped["parts_dropped"] + len(kept) == a.blocks, dropped
    return 0


if __name__ == "__main__":
    sys.exit(main())
