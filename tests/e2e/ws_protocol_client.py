#!/usr/bin/env python3
"""The agents' WebSocket as an independent client sees it: Python's
`websockets` (Debian's python3-websockets), not the project's own client.

Starts `editgate serve` on a fresh workspace, finds the gateway through the
server.json `editgate where` names, connects to its /ws exactly as the
protocol's handshake says (auth-required; auth with the cookie file's
content, newline and all; auth_ok; session-started), then plays describe,
eval on the default page (the built-in Node page), health, a request with an
unknown parameter and a streamed edit, asserting the shapes and that every
request gets exactly one final message (`done` in `status`), and nothing
after it.

Usage: ws_protocol_client.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import json
import os
import sys

from seed_client import connected, gateway

OPEN = "\u00ab\u00ab\u00ab EDIT\n"
REPL = "\u2550" * 7 + " REPL\n"
END = "\u00bb\u00bb\u00bb EDIT END\n"


def block(path, old, new):
    return path + "\n" + OPEN + old + REPL + new + END


async def play(server, cookie_text):
    async with connected(server, cookie_text) as s:
        parts, d = await s.call({"op": "describe", "id": "msg-040"})
        assert parts == [] and d["status"] == ["done"], d
        for op in ("eval", "health", "describe", "shutdown", "edit-begin", "complete"):
            assert op in d["ops"] and isinstance(d["ops"][op]["params"], list), op
        assert d["versions"]["protocol"] == "1.0", d

        # The default page is the built-in Node page, once it has started.
        await s.node_page()
        parts, e = await s.call({"op": "eval", "id": "msg-001", "code": "1 + 2"})
        assert parts == [] and e["value"] == 3 and e["status"] == ["done"], (parts, e)
        parts, out = await s.call({"op": "eval", "id": "msg-002", "code": "console.log('Hello'); 7"})
        assert [p["out"].rstrip("\n") for p in parts] == ["Hello"] and "status" not in parts[0], parts
        assert out["value"] == 7, out

        parts, h = await s.call({"op": "health", "id": "msg-041"})
        assert h["workspace_id"] == server["workspace_id"] and h["nonce"] == server["nonce"], h

        # An unknown parameter: ignored, named, the request answered.
        parts, u = await s.call({"op": "health", "id": "msg-050", "verbose": True})
        assert u["status"] == ["done"] and u["unknown"] == ["verbose"], u

        # A streamed edit: begin, a chunk that completes no block, a chunk
        # that completes one, end; one final message each.
        text = block("a.txt", "beta\n", "BETA\n")
        _, b = await s.call({"op": "edit-begin", "id": "ed-1", "agent": "py"})
        assert b["status"] == ["done"] and b["edit"] == "ed-1", b
        parts, c1 = await s.call({"op": "edit-chunk", "id": "ed-1", "text": text[:12]})
        assert parts == [] and c1["completed"] == 0, (parts, c1)
        parts, c2 = await s.call({"op": "edit-chunk", "id": "ed-1", "text": text[12:]})
        assert [p["block"]["status"] for p in parts] == ["applied"] and c2["completed"] == 1, (parts, c2)
        _, end = await s.call({"op": "edit-end", "id": "ed-1"})
        assert end["status"] == ["done"] and end["counts"]["applied"] == 1 and end["commit"], end

        # An error is final too: one message, done and error.
        parts, err = await s.call({"op": "eval", "id": "msg-003", "code": "null.x"})
        assert parts == [] and err["status"] == ["done", "error"] and err["reason"] == "page_error", err
        await s.nothing_more()


async def flood(server, cookie_text):
    """A client that sends faster than requests end is refused past 256 open
    requests, by name, and the connection and the gateway go on."""
    async with connected(server, cookie_text) as s:
        hang = {"op": "eval", "code": "await new Promise(() => {})", "timeout": 600000, "silent": True}
        for i in range(256):
            await s.ws.send(json.dumps({**hang, "id": "hang-%d" % i}))
        _, r = await s.call({"op": "health", "id": "one-more"})
        assert r["status"] == ["done", "error"] and r["reason"] == "too_many_requests", r
        assert "256 requests of this connection" in r["error"], r
    # The bound is the connection's: another one is answered.
    async with connected(server, cookie_text) as s:
        _, h = await s.call({"op": "health", "id": "fresh"})
        assert h["status"] == ["done"], h


def main():
    with gateway(sys.argv[1], {"a.txt": "alpha\nbeta\ngamma\n"}) as (root, server, cookie_text):
        assert cookie_text.endswith("\n")
        asyncio.run(play(server, cookie_text))
        asyncio.run(flood(server, cookie_text))  # last: its evals hang in the Node page
        with open(os.path.join(root, "a.txt")) as f:
            assert f.read() == "alpha\nBETA\ngamma\n"
    print("ok")


if __name__ == "__main__":
    main()
