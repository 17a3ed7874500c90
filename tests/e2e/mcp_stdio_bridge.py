#!/usr/bin/env python3
"""`editgate mcp` (the stdio bridge) against a fake gateway: a small HTTP
server on 127.0.0.1 that plays POST /mcp, published in the workspace's
state folder (the one `editgate where` names) as a gateway publishes itself
(lock held, port, cookie). It checks the headers the bridge sends and
answers with JSON, SSE, 202, 401, a stream cut in the middle and a slow
stream, so the bridge's own behaviour is tested: concurrency, cancellation,
stdin EOF, bounds.

Usage: mcp_stdio_bridge.py EDITGATE_BINARY. Exit 0 on success.
"""
import base64
import contextlib
import fcntl
import http.server
import json
import os
import queue
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

COOKIE = "0123456789abcdef0123456789abcdef"
SESSION = "sess-1"


class Fake:
    """What the fake gateway saw, and the slow streams it holds open."""

    def __init__(self):
        self.lock = threading.RLock()
        self.seen = []            # (verb, headers dict lower-cased, body object or None)
        self.closed = set()       # ids of slow streams the client closed
        self.release = set()      # ids of slow streams to finish
        self.sessions = 0         # initialize answers given
        self.valid = set()        # the sessions it knows
        self.cond = threading.Condition(self.lock)

    def record(self, verb, headers, body):
        with self.cond:
            self.seen.append((verb, headers, body))
            self.cond.notify_all()

    def wait(self, pred, seconds=10):
        deadline = time.monotonic() + seconds
        with self.cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("the fake gateway did not see it in time")
                self.cond.wait(left)

    def requests(self, method):
        with self.lock:
            return [s for s in self.seen if s[2] is not None and s[2].get("method") == method]


def handler_for(fake):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send_json(self, status, obj, headers=()):
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def start_sse(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

        def event(self, obj):
            data = ("data: " + json.dumps(obj) + "\n\n").encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def end_sse(self):
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def client_closed(self):
            r, _, _ = select.select([self.connection], [], [], 0.02)
            return bool(r) and self.connection.recv(1, socket.MSG_PEEK) == b""

        def do_DELETE(self):
            fake.record("DELETE", {k.lower(): v for k, v in self.headers.items()}, None)
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            headers = {k.lower(): v for k, v in self.headers.items()}
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            body = json.loads(raw)
            fake.record("POST", headers, body)
            if headers.get("authorization") != "Bearer " + COOKIE:
                return self.send_json(401, {"status": "error", "error": "unauthorized", "message": "no cookie"})
            method, rid = body.get("method"), body.get("id")
            params = body.get("params") or {}
            if "id" not in body:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                return self.end_headers()
            session = headers.get("mcp-session-id")
            if method != "initialize" and session and session not in fake.valid:
                return self.send_json(404, {"jsonrpc": "2.0", "id": rid,
                                            "error": {"code": -32001, "message": "session not found"}})
            if method == "initialize":
                with fake.lock:
                    fake.sessions += 1
                    new = "sess-%d" % fake.sessions
                    fake.valid.add(new)
                return self.send_json(200, {"jsonrpc": "2.0", "id": rid, "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "fake", "version": "0"}}},
                    [("Mcp-Session-Id", new)])
            if method == "deny":
                return self.send_json(401, {"status": "error", "error": "unauthorized", "message": "wrong cookie"})
            if method == "headers":
                return self.send_json(200, {"jsonrpc": "2.0", "id": rid, "result": {"headers": headers}})
            if method == "die":
                self.start_sse()
                self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": rid, "progress": 1}})
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            name = params.get("name", "")
            if method == "tools/call" and name == "progress":
                self.start_sse()
                for i in (1, 2):
                    self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": rid, "progress": i, "message": "line\nbreak"}})
                self.event({"jsonrpc": "2.0", "id": rid, "result": {"content": [], "isError": False}})
                return self.end_sse()
            if method == "tools/call" and name.startswith("slow"):
                self.start_sse()
                self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": rid, "progress": 1}})
                while True:
                    with fake.lock:
                        if rid in fake.release:
                            break
                    if self.client_closed():
                        with fake.cond:
                            fake.closed.add(rid)
                            fake.cond.notify_all()
                        self.close_connection = True
                        return
                self.event({"jsonrpc": "2.0", "id": rid, "result": {"content": []}})
                return self.end_sse()
            return self.send_json(200, {"jsonrpc": "2.0", "id": rid, "result": {}})

    return Handler


class RoomyServer(http.server.ThreadingHTTPServer):
    # Room for the 64 connections the bridge opens at once (socketserver's
    # backlog of 5 leaves the rest to SYN retries, seconds apart).
    request_queue_size = 128


def places(binary, root):
    """What `editgate where` names for the workspace at `root`: absolute paths."""
    r = subprocess.run([binary, "where", "--root", root, "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, "editgate where exited %d: %s" % (r.returncode, r.stderr)
    return json.loads(r.stdout)


@contextlib.contextmanager
def fake_gateway(binary):
    """A workspace whose state folder (where `editgate where` says) names
    the fake: the lock held as a running gateway holds it, the port, the
    cookie."""
    fake = Fake()
    server = RoomyServer(("127.0.0.1", 0), handler_for(fake))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as root:
        where = places(binary, root)
        # The state folder and editgate's folders above it, private as a gateway makes them.
        state = where["state"]
        workspaces = os.path.dirname(state)
        os.makedirs(os.path.dirname(os.path.dirname(workspaces)), exist_ok=True)
        for d in (os.path.dirname(workspaces), workspaces, state):
            with contextlib.suppress(FileExistsError):
                os.mkdir(d, 0o700)
        lock = open(where["lock"], "w")
        fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            with open(where["cookie"], "w", opener=lambda p, f: os.open(p, f, 0o600)) as f:
                f.write(COOKIE + "\n")
            with open(where["port"], "w") as f:
                f.write("%d\n" % server.server_address[1])
            yield root, fake
        finally:
            server.shutdown()
            lock.close()
            shutil.rmtree(state, ignore_errors=True)


class Bridge:
    def __init__(self, binary, root, cwd=None):
        args = [binary, "mcp"] + (["--root", root] if root else [])
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=cwd)
        self.lines = queue.Queue()
        self.err = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.p.stderr), daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, obj):
        self.send_raw((json.dumps(obj) if not isinstance(obj, str) else obj) + "\n")

    def send_raw(self, text):
        self.p.stdin.write(text.encode() if isinstance(text, str) else text)
        self.p.stdin.flush()

    def next(self, seconds=10):
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            raise AssertionError("no line from the bridge within %ss; stderr: %r" % (seconds, self.err))
        assert line is not None, "the bridge's stdout ended; stderr: %r" % self.err
        assert line.endswith(b"\n") and line.count(b"\n") == 1, line
        return json.loads(line)

    def nothing(self, seconds=0.3):
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return
        raise AssertionError("unexpected line: %r" % line)

    def close(self, seconds=5):
        self.p.stdin.close()
        code = self.p.wait(seconds)
        return code


def call(bridge, obj, seconds=10):
    bridge.send(obj)
    return bridge.next(seconds)


def test_headers_json_sse_errors(binary):
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        r = call(b, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "t", "version": "0"}}})
        assert r["id"] == 1 and r["result"]["protocolVersion"] == "2025-11-25", r
        _, h, _ = fake.requests("initialize")[0]
        assert h["authorization"] == "Bearer " + COOKIE and h["content-type"] == "application/json", h
        assert "application/json" in h["accept"] and "text/event-stream" in h["accept"], h
        assert "mcp-session-id" not in h, h

        # A notification: 202, nothing on stdout (the next line is the ping's).
        b.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        r = call(b, {"jsonrpc": "2.0", "id": "h", "method": "headers"})
        assert r["id"] == "h", r
        h = r["result"]["headers"]
        assert h["mcp-session-id"] == SESSION and h["mcp-protocol-version"] == "2025-11-25", h
        # The notification's POST and the request's go out side by side: either may land first.
        fake.wait(lambda: fake.requests("notifications/initialized"))

        # Not JSON: a parse error with id null, and the bridge goes on.
        b.send_raw("{not json\n")
        r = b.next()
        assert r["id"] is None and r["error"]["code"] == -32700, r

        # SSE: each event a line, in order (a line break inside a string stays escaped).
        b.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 7}}})
        got = [b.next() for _ in range(3)]
        assert [g.get("method") for g in got] == ["notifications/progress"] * 2 + [None], got
        assert got[0]["params"]["message"] == "line\nbreak" and got[2]["id"] == 7, got

        # editgate's 401 is not JSON-RPC: the request gets an error with its id.
        r = call(b, {"jsonrpc": "2.0", "id": 8, "method": "deny"})
        assert r["id"] == 8 and r["error"]["code"] == -32603, r
        assert "401" in r["error"]["message"] and "unauthorized" in r["error"]["message"], r

        # 2026-07-28: the revision, the method and the name in headers; a
        # name that is not plain ASCII as base64; no session.
        b.send({"jsonrpc": "2.0", "id": 9, "method": "headers",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
        h = b.next()["result"]["headers"]
        assert h["mcp-protocol-version"] == "2026-07-28" and h["mcp-method"] == "headers", h
        assert "mcp-session-id" not in h, h
        assert b.close() == 0


def test_concurrency_and_modern_cancel(binary):
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        name = "slow \u00e9t\u00e9"
        b.send({"jsonrpc": "2.0", "id": "s1", "method": "tools/call",
                "params": {"name": name, "arguments": {},
                           "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "progressToken": "s1"}}})
        # Progress reaches stdout while the call runs.
        r = b.next()
        assert r["method"] == "notifications/progress" and r["params"]["progressToken"] == "s1", r
        _, h, _ = fake.requests("tools/call")[0]
        assert h["mcp-method"] == "tools/call", h
        assert h["mcp-name"] == "=?base64?" + base64.b64encode(name.encode()).decode() + "?=", h
        # A ping is answered while the slow call is in flight.
        r = call(b, {"jsonrpc": "2.0", "id": "p1", "method": "ping"})
        assert r == {"jsonrpc": "2.0", "id": "p1", "result": {}}, r
        # Cancel: forwarded, and the slow stream is closed (modern cancellation).
        b.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s1"}})
        fake.wait(lambda: "s1" in fake.closed)
        fake.wait(lambda: fake.requests("notifications/cancelled"))
        b.nothing()
        assert b.close() == 0


def test_eof_cancels_and_ends_session(binary):
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        call(b, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
        b.send({"jsonrpc": "2.0", "id": "s2", "method": "tools/call", "params": {"name": "slow", "arguments": {}}})
        assert b.next()["method"] == "notifications/progress"
        t0 = time.monotonic()
        assert b.close() == 0
        assert time.monotonic() - t0 < 3, "the bridge took too long to stop"
        fake.wait(lambda: "s2" in fake.closed)
        # 2025-11-25: closing the stream does not cancel; the bridge says so,
        # then ends its session.
        cancels = fake.requests("notifications/cancelled")
        assert cancels and cancels[0][2]["params"]["requestId"] == "s2", fake.seen
        assert cancels[0][1]["mcp-session-id"] == SESSION, cancels
        deletes = [s for s in fake.seen if s[0] == "DELETE"]
        assert deletes and deletes[0][1]["mcp-session-id"] == SESSION, fake.seen


def test_lost_session_initialized_again(binary):
    """The gateway forgot the 2025-11-25 session (restarted, or idle past
    its time): 404 with -32001. The bridge initializes again as the client
    did and sends the call once more; the client sees only its answer."""
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        call(b, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
        with fake.lock:
            fake.valid.clear()
        r = call(b, {"jsonrpc": "2.0", "id": "h", "method": "headers"})
        assert r["id"] == "h" and r["result"]["headers"]["mcp-session-id"] == "sess-2", r
        assert len(fake.requests("initialize")) == 2, fake.seen
        fake.wait(lambda: fake.requests("notifications/initialized"))
        b.nothing()
        assert b.close() == 0


def test_gateway_gone_mid_call(binary):
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        b.send({"jsonrpc": "2.0", "id": "d", "method": "die"})
        r = b.next()
        assert r["method"] == "notifications/progress", r
        r = b.next()
        assert r["id"] == "d" and r["error"]["code"] == -32603 and "closed the connection" in r["error"]["message"], r
        # The bridge goes on: the next request reaches the gateway again.
        assert call(b, {"jsonrpc": "2.0", "id": 2, "method": "ping"})["result"] == {}
        assert b.close() == 0


def test_line_bound(binary):
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        # A line over 16 MiB: refused by name, skipped; the next one is served.
        b.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * (17 << 20) + b'"}}\n')
        r = b.next(30)
        assert r["id"] is None and "payload_too_large" in r["error"]["message"], r
        assert call(b, {"jsonrpc": "2.0", "id": 2, "method": "ping"})["result"] == {}
        assert b.close() == 0


def test_requests_bound(binary):
    with fake_gateway(binary) as (root, fake):
        b = Bridge(binary, root)
        # 64 requests in flight at most: the 65th is refused by name.
        for i in range(64):
            b.send({"jsonrpc": "2.0", "id": "slow-%d" % i, "method": "tools/call",
                    "params": {"name": "slow", "arguments": {}}})
        for _ in range(64):
            assert b.next()["method"] == "notifications/progress"
        r = call(b, {"jsonrpc": "2.0", "id": "one-more", "method": "ping"})
        assert r["id"] == "one-more" and "too_many_requests" in r["error"]["message"], r
        assert b.close() == 0
        fake.wait(lambda: len(fake.closed) == 64)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def test_starts_gateway_that_outlives_it(binary):
    """No gateway serves the workspace: the bridge, started in a folder below
    it, starts `editgate serve` there in the background, serves through it,
    and leaves it running when its input ends."""
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["git", "init", "-q", root], check=True)
        sub = os.path.join(root, "src", "deep")
        os.makedirs(sub)
        b = subprocess.Popen([binary, "mcp", "--port", "0"], cwd=sub, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        server = None
        try:
            b.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
            b.stdin.flush()
            line = b.stdout.readline()
            r = json.loads(line)
            assert r["id"] == 1, r
            where = places(binary, root)
            assert where["running"], where
            with open(where["server_json"]) as f:
                server = json.load(f)
            assert pid_alive(server["pid"]), server
            assert os.path.exists(where["serve_log"]), where
            assert not os.path.exists(os.path.join(root, ".editgate")), "state in the working tree"
            b.stdin.close()
            assert b.wait(5) == 0
            assert b.stdout.read() == b"", "stdout carries nothing but messages"
            assert pid_alive(server["pid"]), "the gateway stopped with the bridge"
            # Its message to the client's log says how to see and stop that gateway.
            said = b.stderr.read().decode()
            assert "`editgate stop` stops it" in said, said
            assert "`editgate dashboard` prints its dashboard's URL" in said, said
        finally:
            if b.poll() is None:
                b.kill()
            if server:
                os.kill(server["pid"], 15)
                deadline = time.monotonic() + 15
                while pid_alive(server["pid"]) and time.monotonic() < deadline:
                    time.sleep(0.05)


def snippets(binary, client, root):
    """`mcp config`'s sections: each one's text without comments and exports."""
    out = subprocess.run([binary, "mcp", "config", "--client", client, "--root", root], check=True,
                         capture_output=True, text=True).stdout
    sections = []
    for part in out.split("\n\n"):
        lines = [l for l in part.splitlines() if not l.startswith("#") and not l.startswith("export ")]
        sections.append("\n".join(lines))
    return sections


def test_config_snippets(binary):
    """Each client's snippet parses as its file's format, with the keys the
    client reads; the stdio entry runs this binary's `mcp`, the HTTP one
    takes the token from the environment (or a VS Code input)."""
    import tomllib
    with tempfile.TemporaryDirectory() as root:
        stdio, http_ = snippets(binary, "claude", root)
        assert stdio.startswith("claude mcp add editgate -- ") and stdio.endswith(" mcp --root " + root), stdio
        assert json.loads(http_)["mcpServers"]["editgate"]["headers"]["Authorization"] == "Bearer ${EDITGATE_TOKEN}"
        stdio, http_ = snippets(binary, "codex", root)
        entry = tomllib.loads(stdio)["mcp_servers"]["editgate"]
        assert entry["args"] == ["mcp", "--root", root], entry
        assert entry["command"] == "editgate" or os.path.samefile(entry["command"], binary), entry
        assert tomllib.loads(http_)["mcp_servers"]["editgate"]["bearer_token_env_var"] == "EDITGATE_TOKEN"
        for client, key, auth in (("cursor", "mcpServers", "Bearer ${env:EDITGATE_TOKEN}"),
                                  ("vscode", "servers", "Bearer ${input:editgate-token}"),
                                  ("gemini", "mcpServers", "Bearer $EDITGATE_TOKEN")):
            stdio, http_ = (json.loads(x) for x in snippets(binary, client, root))
            assert stdio[key]["editgate"]["args"] == ["mcp", "--root", root], (client, stdio)
            assert (stdio[key]["editgate"].get("type") == "stdio") == (client == "vscode"), stdio
            assert http_[key]["editgate"]["headers"]["Authorization"] == auth, (client, http_)
        assert subprocess.run([binary, "mcp", "config", "--client", "emacs"], capture_output=True).returncode == 2
    # Outside any repository (a snippet for every project): the stdio entry
    # finds its workspace where the client starts it, the HTTP one's token
    # is the cookie of the workspace the shell is in; nothing is made.
    with tempfile.TemporaryDirectory() as nowhere:
        r = subprocess.run([binary, "mcp", "config", "--client", "claude"], cwd=nowhere, capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        assert "claude mcp add editgate -- " in r.stdout and " mcp --root" not in r.stdout, r.stdout
        assert 'export EDITGATE_TOKEN="$(' in r.stdout and ' mcp token)"' in r.stdout, r.stdout
        assert os.listdir(nowhere) == [], os.listdir(nowhere)


def test_http_snippet_on_a_fresh_machine(binary):
    """Where no gateway ran yet (a state folder of its own, no cookie), the
    HTTP snippet works as printed: its export line starts the workspace's
    gateway and yields its token, with which the snippet's URL answers."""
    import re
    import urllib.request
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as state:
        subprocess.run(["git", "init", "-q", root], check=True)
        env = dict(os.environ, XDG_STATE_HOME=state)
        out = subprocess.run([binary, "mcp", "config", "--client", "claude", "--root", root], env=env, check=True,
                             capture_output=True, text=True).stdout
        export = next(l for l in out.splitlines() if l.startswith("export EDITGATE_TOKEN="))
        url = json.loads(out[out.rindex("\n{\n") + 1:])["mcpServers"]["editgate"]["url"]
        try:
            got = subprocess.run(["sh", "-c", export + '\nprintf %s "$EDITGATE_TOKEN"'], env=env, capture_output=True,
                                 text=True, timeout=60)
            assert re.fullmatch(r"[0-9a-f]{32}", got.stdout), (got.stdout, got.stderr)
            moved = re.search(r"listens on port (\d+)", got.stderr)  # the workspace's port was taken
            if moved:
                url = "http://127.0.0.1:%s/mcp" % moved.group(1)
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                          "clientInfo": {"name": "snippet", "version": "1"}}}).encode()
            req = urllib.request.Request(url, data=body, method="POST", headers={
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "Authorization": "Bearer " + got.stdout})
            with urllib.request.urlopen(req, timeout=30) as answer:
                assert answer.status == 200, answer.status
                assert b'"protocolVersion"' in answer.read()
        finally:
            stop = subprocess.run([binary, "stop", "--root", root], env=env, capture_output=True, text=True)
            assert stop.returncode == 0, stop.stderr


def main():
    binary = os.path.abspath(sys.argv[1])
    for test in (test_headers_json_sse_errors, test_concurrency_and_modern_cancel, test_eof_cancels_and_ends_session,
                 test_lost_session_initialized_again,
                 test_gateway_gone_mid_call, test_line_bound, test_requests_bound, test_starts_gateway_that_outlives_it,
                 test_config_snippets, test_http_snippet_on_a_fresh_machine):
        test(binary)
        print("ok", test.__name__)


if __name__ == "__main__":
    main()
