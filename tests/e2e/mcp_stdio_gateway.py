#!/usr/bin/env python3
"""`editgate mcp` end to end: the stdio bridge in front of a real gateway's
POST /mcp, as an agent client drives it: initialize (2025-11-25), tools/list,
page_eval of 6*7 on the built-in Node page, progress lines while an eval
runs, a 2026-07-28 call (its headers derived by the bridge), and a long
2026-07-28 eval cancelled (the page is free again at once).

Usage: mcp_stdio_gateway.py EDITGATE_BINARY. Exit 0 on success.
"""
import json
import sys
import time

from mcp_stdio_bridge import Bridge
from seed_client import gateway

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def call(b, obj, seconds=30):
    b.send(obj)
    while True:
        r = b.next(seconds)
        if r.get("id") == obj["id"]:
            return r


def tool(b, rid, name, arguments, meta=None):
    params = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    r = call(b, {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
    assert "result" in r, r
    return r["result"]


def wait_for_node_page(b):
    for i in range(400):
        pages = tool(b, "pages-%d" % i, "page_list", {})["structuredContent"]["pages"]
        if any(p["kind"] == "node" and p["state"] != "disconnected" for p in pages):
            return
        time.sleep(0.05)
    raise AssertionError("the Node page did not start")


def main():
    binary = sys.argv[1]
    with gateway(binary, {"a.txt": "alpha\n"}) as (root, server, cookie):
        b = Bridge(binary, root)
        r = call(b, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "test", "version": "1"}}})
        assert r["result"]["protocolVersion"] == "2025-11-25", r
        b.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

        r = call(b, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        names = [t["name"] for t in r["result"]["tools"]]
        assert names[:2] == ["edit_apply", "edit_check"] and "page_eval" in names, names

        wait_for_node_page(b)
        result = tool(b, 3, "page_eval", {"code": "6*7"})
        assert not result.get("isError") and result["structuredContent"]["value"] == 42, result

        # Progress: the eval's output lines come as notifications before the result.
        b.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "page_eval", "arguments": {"code": "console.log('one'); console.log('two'); 3"},
                           "_meta": {"progressToken": "p4"}}})
        seen = []
        while True:
            m = b.next(30)
            seen.append(m)
            if m.get("id") == 4:
                break
        progress = [m for m in seen if m.get("method") == "notifications/progress"]
        assert progress and all(m["params"]["progressToken"] == "p4" for m in progress), seen
        assert seen[-1]["result"]["structuredContent"]["value"] == 3, seen

        # 2026-07-28: no session; the bridge sends the headers the gateway checks.
        result = tool(b, 5, "page_eval", {"code": "6*7"}, MODERN)
        assert result["structuredContent"]["value"] == 42 and result.get("resultType") == "complete", result

        # A long 2026-07-28 eval, cancelled: its stream closes, no answer
        # comes for it, and the page runs the next eval at once.
        b.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                "params": {"name": "page_eval",
                           "arguments": {"code": "await new Promise(r => setTimeout(r, 60000))", "timeout": 90000},
                           "_meta": MODERN}})
        time.sleep(0.5)
        b.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6, "_meta": MODERN}})
        t0 = time.monotonic()
        r = call(b, {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "page_eval", "arguments": {"code": "6*7"}, "_meta": MODERN}}, 20)
        assert r["result"]["structuredContent"]["value"] == 42, r
        assert time.monotonic() - t0 < 15, "the cancelled eval held the page"
        assert b.close() == 0
    print("ok")


if __name__ == "__main__":
    main()
