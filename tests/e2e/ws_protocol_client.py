#!/usr/bin/env python3
"""The agents' WebSocket as an independent client sees it: Python's
`websockets` (Debian's python3-websockets), not the project's own client.

Starts `editgate serve` on a fresh workspace, finds the gateway through
.editgate/server.json, connects to its /ws exactly as the protocol's
handshake says (auth-required; auth with the cookie file's content, newline
and all; auth_ok; session-started), then plays describe, eval on the default
page (the built-in Node page), health, a request with an unknown parameter
and a streamed edit, asserting the shapes and that every request gets
exactly one final message (`done` in `status`), and nothing after it.

Usage: ws_protocol_client.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import websockets

OPEN = "\u00ab\u00ab\u00ab EDIT\n"
REPL = "\u2550" * 7 + " REPL\n"
END = "\u00bb\u00bb\u00bb EDIT END\n"


def block(path, old, new):
    return path + "\n" + OPEN + old + REPL + new + END


def git(root, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=root, check=True, capture_output=True)


def wait_for(path, seconds=20):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError(path + " did not appear")
        time.sleep(0.05)


class Session:
    """Sends one request at a time and reads until its final message."""

    def __init__(self, ws):
        self.ws = ws

    async def recv(self, timeout=20):
        return json.loads(await asyncio.wait_for(self.ws.recv(), timeout))

    async def call(self, msg):
        await self.ws.send(json.dumps(msg))
        parts = []
        while True:
            m = await self.recv()
            assert m.get("id") == msg.get("id"), ("a message of another request", msg, m)
            if "done" in m.get("status", []):
                return parts, m
            parts.append(m)

    async def nothing_more(self, seconds=0.5):
        try:
            stray = await asyncio.wait_for(self.ws.recv(), seconds)
        except asyncio.TimeoutError:
            return
        raise AssertionError("a message after the final one: " + stray)


async def play(server, cookie_text):
    async with websockets.connect(server["ws"], max_size=None) as ws:
        s = Session(ws)
        # The handshake, step by step.
        assert await s.recv() == {"op": "auth-required"}
        await ws.send(json.dumps({"type": "auth", "cookie": cookie_text}))
        assert await s.recv() == {"type": "auth_ok"}
        started = await s.recv()
        assert started["op"] == "session-started" and started["session"], started

        parts, d = await s.call({"op": "describe", "id": "msg-040"})
        assert parts == [] and d["status"] == ["done"], d
        for op in ("eval", "health", "describe", "shutdown", "edit-begin", "complete"):
            assert op in d["ops"] and isinstance(d["ops"][op]["params"], list), op
        assert d["versions"]["protocol"] == "1.0", d

        # The default page is the built-in Node page, once it has started.
        for i in range(200):
            _, pages = await s.call({"op": "pages", "id": "wait-%d" % i})
            if any(p["page"].startswith("node-") and p["state"] != "disconnected" for p in pages["pages"]):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the Node page did not start")
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


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as root:
        git(root, "init", "-q", "-b", "main")
        with open(os.path.join(root, "a.txt"), "w") as f:
            f.write("alpha\nbeta\ngamma\n")
        git(root, "add", "a.txt")
        git(root, "commit", "-q", "-m", "start")
        gw = subprocess.Popen([binary, "serve", "--port", "0", "--root", root],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            state = os.path.join(root, ".editgate")
            wait_for(os.path.join(state, "port"))
            with open(os.path.join(state, "server.json")) as f:
                server = json.load(f)
            assert server["pid"] == gw.pid, server
            with open(os.path.join(state, "cookie")) as f:
                cookie_text = f.read()
            assert cookie_text.endswith("\n")
            asyncio.run(play(server, cookie_text))
            with open(os.path.join(root, "a.txt")) as f:
                assert f.read() == "alpha\nBETA\ngamma\n"
        finally:
            gw.send_signal(signal.SIGTERM)
            try:
                gw.wait(15)
            except subprocess.TimeoutExpired:
                gw.kill()
                gw.wait()
    print("ok")


if __name__ == "__main__":
    main()
