#!/usr/bin/env python3
"""Eval latency while the dashboard reads a chat log that is slow to render.

A gateway with its Node page; 40 entries of 60 KiB of "![[]()" and one
wide table header (64 KiB of "|a", both quadratic for cmark-gfm
0.29.0.gfm.6) are appended to the page's log; one WebSocket reads the log
(limit_bytes 4 MiB) again and again, as a dashboard would, while another
runs --evals evals, one every --interval seconds (the next sent when the
last has answered). Prints each kind's p50 and max.

Usage: log_stall.py EDITGATE_BINARY [--evals 20] [--interval 1] [--seconds 240]
"""
import argparse
import asyncio
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from seed_client import connected, gateway  # noqa: E402


def slow_log():
    text = ""
    for i in range(40):
        text += "\n> **node** to agent at 12:00:%02d (1ms)\n\n%s\n" % (i, "![[]()" * 10000)
    return text + "\n> **node** to agent at 12:01:00 (1ms)\n\n" + "|a" * 32000 + "|\n" + "|-" * 32000 + "|\n"


async def reads(server, cookie, stop, took):
    async with connected(server, cookie) as s:
        n = 0
        while not stop.is_set():
            n += 1
            start = time.monotonic()
            await s.send({"op": "log", "id": "l%d" % n, "limit_bytes": 4194304})
            final = json.loads(await s.ws.recv())  # as long as it takes
            assert "done" in final["status"], final
            took.append((time.monotonic() - start, sum(not e.get("rendered", True) for e in final["entries"])))


async def run(binary, evals, interval, seconds):
    with gateway(binary, {"a.txt": "hello\n"}) as (root, server, cookie):
        async with connected(server, cookie) as s:
            page = await s.node_page()
            with open(os.path.join(root, page["log"]), "a") as f:
                f.write(slow_log())
            await asyncio.sleep(1)  # the gateway reads the append
            stop, log_took = asyncio.Event(), []
            reader = asyncio.create_task(reads(server, cookie, stop, log_took))
            await asyncio.sleep(0.3)  # the first read is under way
            lat, deadline = [], time.monotonic() + seconds
            for i in range(evals):
                if time.monotonic() > deadline:
                    break
                start = time.monotonic()
                await s.send({"op": "eval", "id": "e%d" % i, "page": "node", "code": "6 * 7"})
                while True:
                    m = json.loads(await asyncio.wait_for(s.ws.recv(), seconds))
                    if m.get("id") == "e%d" % i and "done" in m.get("status", []):
                        break
                lat.append(time.monotonic() - start)
                await asyncio.sleep(max(0.0, interval - lat[-1]))
            stop.set()
            await reader
    ms = lambda v: "%.0f ms" % (v * 1000)  # noqa: E731
    print("%s: %d evals while the log was read: p50 %s, max %s" % (binary, len(lat), ms(statistics.median(lat)),
                                                                   ms(max(lat))))
    print("  %d log reads: p50 %s, max %s; entries sent as plain text per read: %s"
          % (len(log_took), ms(statistics.median(t for t, _ in log_took)), ms(max(t for t, _ in log_took)),
             sorted({p for _, p in log_took})))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--evals", type=int, default=20)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--seconds", type=int, default=240)
    a = ap.parse_args()
    asyncio.run(run(a.binary, a.evals, a.interval, a.seconds))


if __name__ == "__main__":
    main()
