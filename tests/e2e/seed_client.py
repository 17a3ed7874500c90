"""What the independent WebSocket clients of tests/e2e share: a gateway on a
fresh workspace, the protocol's handshake, one request at a time.

Python's `websockets` (Debian's python3-websockets), not the project's own
client: these tests read only the protocol reference.
"""
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time

import websockets


def git(root, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=root, check=True, capture_output=True)


def places(binary, root):
    """What `editgate where` names for the workspace at `root` (its state
    folder's files, the agents' folder), as absolute paths: the documented
    way to find them, with or without a gateway running."""
    r = subprocess.run([binary, "where", "--root", root, "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, "editgate where exited %d: %s" % (r.returncode, r.stderr)
    return json.loads(r.stdout)


def wait_for(path, seconds=20):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError(path + " did not appear")
        time.sleep(0.05)


@contextlib.contextmanager
def gateway(binary, files, args=()):
    """`editgate serve` on a new git workspace holding `files` (path -> text),
    committed, with `args` more; yields (root, server.json's content, the
    cookie file's text)."""
    with tempfile.TemporaryDirectory() as root:
        git(root, "init", "-q", "-b", "main")
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)) or root, exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", "start")
        where = places(binary, root)
        gw = subprocess.Popen([binary, "serve", "--port", "0", "--root", root, *args],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(where["port"])
            with open(where["server_json"]) as f:
                server = json.load(f)
            assert server["pid"] == gw.pid, server
            with open(where["cookie"]) as f:
                cookie_text = f.read()
            yield root, server, cookie_text
        finally:
            stop(gw)


def stop(gw):
    """Stops a gateway the way a person does (SIGTERM), killing it if it hangs."""
    gw.send_signal(signal.SIGTERM)
    try:
        gw.wait(15)
    except subprocess.TimeoutExpired:
        gw.kill()
        gw.wait()


class Session:
    """Sends one request at a time and reads until its final message."""

    def __init__(self, ws):
        self.ws = ws
        self.session = None

    async def recv(self, timeout=20):
        return json.loads(await asyncio.wait_for(self.ws.recv(), timeout))

    async def handshake(self, cookie_text, resume=None):
        """The protocol's handshake, step by step (resuming session `resume`
        when given); keeps the session-started message as `started`."""
        assert await self.recv() == {"op": "auth-required"}
        auth = {"type": "auth", "cookie": cookie_text}
        if resume:
            auth["resume"] = resume
        await self.ws.send(json.dumps(auth))
        assert await self.recv() == {"type": "auth_ok"}
        started = await self.recv()
        assert started["op"] == "session-started" and started["session"], started
        self.started = started
        self.session = started["session"]

    async def send(self, msg):
        await self.ws.send(json.dumps(msg))

    async def until_done(self, rid):
        """The messages of request `rid` up to its final one (done in status):
        (the messages before the final one, the final one)."""
        parts = []
        while True:
            m = await self.recv()
            assert m.get("id") == rid, ("a message of another request", rid, m)
            if "done" in m.get("status", []):
                return parts, m
            parts.append(m)

    async def call(self, msg):
        await self.send(msg)
        return await self.until_done(msg.get("id"))

    async def nothing_more(self, seconds=0.5):
        try:
            stray = await asyncio.wait_for(self.ws.recv(), seconds)
        except asyncio.TimeoutError:
            return
        raise AssertionError("a message after the final one: " + stray)

    async def node_page(self):
        """Waits for the built-in Node page to connect; its entry in pages."""
        for i in range(400):
            _, pages = await self.call({"op": "pages", "id": "wait-%d" % i})
            for p in pages["pages"]:
                if p["kind"] == "node" and p["state"] != "disconnected":
                    return p
            await asyncio.sleep(0.05)
        raise AssertionError("the Node page did not start")


@contextlib.asynccontextmanager
async def connected(server, cookie_text, kind=Session):
    async with websockets.connect(server["ws"], max_size=None) as ws:
        s = kind(ws)
        await s.handshake(cookie_text)
        yield s
