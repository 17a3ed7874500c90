"""The dashboard's door, from outside: the one-time sign-in URL `editgate
serve` prints, the session cookie (found among cookies another origin
tossed in), its WebSocket (the agents' protocol, signed in by the cookie),
the live events of `watch`, and origins approved or refused by the person
but never by an agent, nor by a sign-in minted through the API; one site's
subdomains cannot fill the pending list, and the person types an origin; a page's screenshots
reach the signed-in dashboard alone, from their own folder only, 16 read at a time. Written from the reference in
docs/guide/protocol.md with Python's http.client and Debian's websockets.

Usage: dashboard_door.py EDITGATE
"""
import asyncio
import contextlib
import http.client
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

import websockets

from seed_client import Session, connected, git, places, stop, wait_for

EDITGATE = sys.argv[1]
# The dashboard's cookie, named for the running gateway's port (cookies do
# not separate ports): set by serving().
NAME = None


@contextlib.contextmanager
def serving(output=None):
    """A gateway on a new workspace: (root, server.json, cookie, the printed dashboard URL).
    Its standard output is a pipe, as a terminal's, or the file `output`."""
    with tempfile.TemporaryDirectory() as root:
        git(root, "init", "-q", "-b", "main")
        git(root, "commit", "-q", "--allow-empty", "-m", "start")
        where = places(EDITGATE, root)
        gw = subprocess.Popen([EDITGATE, "serve", "--port", "0", "--root", root],
                              stdout=output or subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = None
            if output:
                wait_for(where["port"])
                with open(output.name) as f:
                    lines = f.read().splitlines()
            else:
                lines = gw.stdout
            for line in lines:
                if line.strip().startswith("dashboard: "):
                    url = line.split("dashboard: ", 1)[1].strip()
                    break
            assert url, "serve printed no dashboard URL"
            wait_for(where["port"])
            with open(where["server_json"]) as f:
                server = json.load(f)
            global NAME
            NAME = "editgate_dashboard_%d" % server["port"]
            with open(where["cookie"]) as f:
                cookie = f.read()
            yield root, server, cookie, url
        finally:
            stop(gw)


def get(url, headers=None, method="GET", body=None):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request(method, u.path + ("?" + u.query if u.query else ""), body=body, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def sign_in(url):
    """Spends the token: the session cookie's value."""
    status, headers, _ = get(url)
    assert status == 303 and headers["location"] == "/", (status, headers)
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie, cookie
    name, value = cookie.split(";")[0].split("=", 1)
    assert name == NAME and len(value) == 32, cookie
    return value


def check_sign_in(url):
    base = url.split("?")[0]
    # Not signed in: the page says how to sign in, and shows no data.
    status, _, body = get(base)
    assert status == 401 and b"editgate dashboard" in body, (status, body)
    value = sign_in(url)
    # The token is single-use.
    status, headers, _ = get(url)
    assert status == 401 and "set-cookie" not in headers, (status, headers)
    status, _, _ = get(base + "?token=" + "0" * 32)
    assert status == 401
    # Signed in: the page, its script and style, from the binary, under a strict CSP.
    status, headers, body = get(base, {"Cookie": "other=1; " + NAME + "=" + value})
    assert status == 200 and b"/dashboard.js" in body, (status, body[:200])
    csp = headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe" not in csp, csp
    for asset, kind in (("dashboard.js", "javascript"), ("dashboard/socket.js", "javascript"),
                        ("dashboard.css", "text/css")):
        status, headers, body = get(base + asset)
        assert status == 200 and kind in headers["content-type"] and body, (asset, status)
    # A wrong cookie is no session.
    status, _, _ = get(base, {"Cookie": NAME + "=" + "0" * 32})
    assert status == 401
    return value


async def refused_upgrade(uri, origin, cookie, headers=None):
    headers = headers or ({"Cookie": NAME + "=" + cookie} if cookie else {})
    try:
        async with websockets.connect(uri, origin=origin, extra_headers=headers):
            pass
    except websockets.exceptions.InvalidStatusCode as e:
        return e.status_code
    raise AssertionError("the upgrade from %r was accepted" % (origin,))


async def dashboard_socket(server, cookie, origin, person=True, headers=None):
    """The dashboard's socket signed in by `cookie` (or the Cookie `headers`), of the grade `person` says."""
    ws = await websockets.connect(server["ws"].replace("/ws", "/v1/dashboard"), origin=origin,
                                  extra_headers=headers or {"Cookie": NAME + "=" + cookie}, max_size=None)
    s = Session(ws)
    assert await s.recv() == {"type": "auth_ok"}
    started = await s.recv()
    assert started["op"] == "session-started", started
    assert started["can_approve"] is person, started
    return s


async def check_viewer(server, viewer, base):
    """A sign-in minted through the API looks, and cannot approve: the error says where the person does."""
    s = await dashboard_socket(server, viewer, base, person=False)
    listed = await call(s, {"op": "origins", "id": "v1"})
    assert "pending" in listed, listed
    refused = await call(s, {"op": "approve", "id": "v2", "origin": "http://pages.example:8000", "allow": True})
    assert refused["reason"] == "person_only", refused
    assert "editgate serve" in refused["error"] and "terminal" in refused["error"], refused
    refused = await call(s, {"op": "approve", "id": "v3", "origin": "http://viewer.example", "allow": True})
    assert refused["reason"] == "person_only", refused
    listed = await call(s, {"op": "origins", "id": "v4"})
    assert "http://viewer.example" not in [o["origin"] for o in listed["allowed"]], listed
    await s.ws.close()


async def next_event(s, kind, test=lambda e: True, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        m = await s.recv(deadline - time.monotonic())
        e = m.get("event")
        if e and e["type"] == kind and test(e):
            return e
    raise AssertionError("no %s event" % kind)


async def call(s, msg):
    """A request on the dashboard's socket, whose watch events go on meanwhile: its final reply."""
    await s.send(msg)
    while True:
        m = await s.recv()
        if m.get("id") == msg["id"] and "done" in m.get("status", []):
            return m


async def page_upgrade(server, origin, path="/v1/page"):
    """A page's handshake at `path` from `origin`: the HTTP status, and the error body when refused."""
    u = urllib.parse.urlsplit(server["http"])
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request("GET", path, headers={"Origin": origin, "Upgrade": "websocket", "Connection": "Upgrade",
                                          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                          "Sec-WebSocket-Version": "13"})
    r = c.getresponse()
    body = r.read() if r.status != 101 else b""
    c.close()
    return r.status, json.loads(body) if body else None



async def check_socket(server, cookie_text, url, value):
    base = url.split("?")[0].rstrip("/")
    port = urllib.parse.urlsplit(base).port
    dash = server["ws"].replace("/ws", "/v1/dashboard")
    # Another origin never reads the dashboard's data, even with the cookie;
    # nor does a signed-out browser on the right one.
    assert await refused_upgrade(dash, "http://evil.example", value) == 403
    assert await refused_upgrade(dash, "http://127.0.0.1:%d" % (port + 1 if port < 65535 else 1), value) == 403
    assert await refused_upgrade(dash, base, None) == 401
    assert await refused_upgrade(dash, base, "0" * 32) == 401

    s = await dashboard_socket(server, value, base)
    await s.send({"op": "watch", "id": "w"})
    first = await next_event(s, "pages")
    assert isinstance(first["pages"], list)
    origins = await next_event(s, "origins")
    assert origins["pending"] == [] and origins["allowed"] == [] and origins["refused"] == []

    # An agent's eval: the page's log grows and HEAD moves, told live.
    async with connected(server, cookie_text) as agent:
        await agent.node_page()
        _, done = await agent.call({"op": "eval", "id": "e1", "code": "6 * 7"})
        assert done["value"] == 42, done
        ex = await next_event(s, "exchange")
        assert ex["log"].startswith("debug/") and ex["page"], ex
        commit = await next_event(s, "commit")
        assert len(commit["commit"]) == 40

        # An edit run that fails commits nothing, and is told all the same.
        text = "missing.txt\n\u00ab\u00ab\u00ab EDIT\nnot there\n\u2550\u2550\u2550\u2550\u2550\u2550\u2550 REPL\nx\n\u00bb\u00bb\u00bb EDIT END\n"
        await agent.send({"op": "edit", "id": "ed", "text": text, "agent": "claude"})
        await agent.until_done("ed")
        run = (await next_event(s, "run"))["run"]
        assert run["agent"] == "claude" and run["commit"] is None, run
        assert run["blocks"][0]["status"] == "failed" and run["blocks"][0]["diagnostic"], run

        # A page from an origin nobody allowed waits for the person.
        status, body = await page_upgrade(server, "http://pages.example:8000")
        assert status == 403 and body["error"] == "origin_pending", (status, body)
        assert "dashboard" in body["message"]
        pending = await next_event(s, "origins", lambda e: e["pending"])
        assert [p["origin"] for p in pending["pending"]] == ["http://pages.example:8000"], pending
        # An agent sees it, and cannot allow it: a page's text steers agents.
        _, listed = await agent.call({"op": "origins", "id": "o1"})
        assert listed["pending"][0]["origin"] == "http://pages.example:8000"
        _, refused = await agent.call({"op": "approve", "id": "a1", "origin": "http://pages.example:8000",
                                       "allow": True})
        assert refused["reason"] == "person_only", refused
        status, body = await page_upgrade(server, "http://pages.example:8000")
        assert status == 403 and body["error"] == "origin_pending"

    # The person allows it: the page connects; refuses another: it stays out.
    ok = await call(s, {"op": "approve", "id": "a2", "origin": "http://pages.example:8000", "allow": True})
    assert ok["allowed"] is True, ok
    status, _ = await page_upgrade(server, "http://pages.example:8000")
    assert status == 101, status
    status, body = await page_upgrade(server, "http://other.example")
    assert body["error"] == "origin_pending"
    ok = await call(s, {"op": "approve", "id": "a3", "origin": "http://other.example", "allow": False})
    status, body = await page_upgrade(server, "http://other.example")
    assert status == 403 and body["error"] == "forbidden_origin" and "refused" in body["message"], body
    # A tab of another workspace is let through to its hello (refused there, wrong_workspace, with
    # words for its console): its origin is never put before this gateway's person.
    status, _ = await page_upgrade(server, "http://elsewhere.example", "/v1/page?workspace=0000000000000000")
    assert status == 101, status
    listed = await call(s, {"op": "origins", "id": "o2"})
    assert "http://elsewhere.example" not in [p["origin"] for p in listed["pending"]], listed
    # The person may type an origin before its page asks: exactly scheme://host[:port].
    typed = await call(s, {"op": "approve", "id": "a4", "origin": "https://Typed.example:8443", "allow": True})
    assert typed["allowed"] is True and typed["origin"] == "https://typed.example:8443", typed
    status, _ = await page_upgrade(server, "https://typed.example:8443")
    assert status == 101, status
    for bad in ("https://typed.example/", "https://typed.example/app", "https://u@typed.example", "typed.example",
                "ftp://typed.example", "https://typed.example?x"):
        refused = await call(s, {"op": "approve", "id": "a5", "origin": bad, "allow": True})
        assert refused["reason"] == "bad_request", (bad, refused)
    # One site's subdomains (iframes of one visit) hold a few places, never the list.
    for i in range(20):
        status, body = await page_upgrade(server, "https://x%d.jam.example" % i)
        assert status == 403
    assert body["error"] == "forbidden_origin" and "of its site (jam.example)" in body["message"], body
    listed = await call(s, {"op": "origins", "id": "o1"})
    jam = [o["origin"] for o in listed["pending"] if o["origin"].endswith(".jam.example")]
    assert len(jam) == 4, jam
    status, body = await page_upgrade(server, "https://app.mine.example")
    assert body["error"] == "origin_pending", body
    # A flood of made-up origins fills the pending list, then is refused
    # outright: what the person sees stays put.
    for i in range(20):
        status, body = await page_upgrade(server, "http://flood%d.example" % i)
        assert status == 403
    assert body["error"] == "forbidden_origin" and "wait for approval" in body["message"], body
    listed = await call(s, {"op": "origins", "id": "o2"})
    assert len(listed["pending"]) == 16, len(listed["pending"])
    # The person's own origin, typed, connects all the same.
    ok = await call(s, {"op": "approve", "id": "a6", "origin": "https://late.example", "allow": True})
    assert ok["allowed"] is True, ok
    status, _ = await page_upgrade(server, "https://late.example")
    assert status == 101, status
    await s.ws.close()


async def check_tossed(server, base, value):
    """A page on another loopback origin tossed its own editgate_dashboard cookie (a longer path:
    the browser sends it first): the person's session among the values still signs in."""
    tossed = NAME + "=tossed; " + NAME + "=" + value
    status, _, _ = get(base + "/", {"Cookie": tossed})
    assert status == 200, status
    s = await dashboard_socket(server, value, base, headers={"Cookie": tossed})
    await s.ws.close()
    # In two Cookie headers, too.
    s = await dashboard_socket(server, value, base, headers=[("Cookie", NAME + "=tossed"),
                                                            ("Cookie", "a=1; " + NAME + "=" + value)])
    await s.ws.close()
    # Tossed ones alone are no session.
    dash = server["ws"].replace("/ws", "/v1/dashboard")
    assert await refused_upgrade(dash, base, None, {"Cookie": NAME + "=tossed; " + NAME + "=x"}) == 401


def tiny_png(rgb):
    """A 1x1 PNG of colour `rgb`, as a browser would decode it."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"\x00" + bytes(rgb))) + chunk(b"IEND", b""))


def check_screenshot(root, base, value):
    """GET /v1/dashboard/screenshot: a screenshot's PNG for the signed-in dashboard only, from
    debug/<page>.screenshots/<n>.png only, never through a symlink; each refusal by name."""
    shots = os.path.join(root, "debug", "shot-1a2b.screenshots")
    os.makedirs(shots)
    png = tiny_png((200, 30, 40))
    with open(os.path.join(shots, "3.png"), "wb") as f:
        f.write(png)
    with open(os.path.join(root, "notes.png"), "wb") as f:
        f.write(png)
    os.symlink("3.png", os.path.join(shots, "4.png"))
    os.symlink(os.path.join(root, "notes.png"), os.path.join(shots, "5.png"))
    cookie = {"Cookie": NAME + "=" + value}

    def shot(path, headers=cookie, method="GET"):
        return get(base + "/v1/dashboard/screenshot?path=" + urllib.parse.quote(path, safe=""), headers, method)

    status, headers, body = shot("debug/shot-1a2b.screenshots/3.png")
    assert status == 200 and body == png, (status, body[:80])
    assert headers["content-type"] == "image/png" and headers["x-content-type-options"] == "nosniff", headers
    assert headers["cache-control"] == "no-store" and headers["cross-origin-resource-policy"] == "same-origin", headers
    assert "sandbox" in headers["content-security-policy"], headers

    def refused(path, code, status_code, headers=cookie, method="GET"):
        status, _, body = shot(path, headers, method)
        assert status == status_code and json.loads(body)["error"] == code, (path, status, body)

    # No cookie, a wrong one, a tossed one alone: no bytes.
    refused("debug/shot-1a2b.screenshots/3.png", "unauthorized", 401, {})
    refused("debug/shot-1a2b.screenshots/3.png", "unauthorized", 401, {"Cookie": NAME + "=" + "0" * 32})
    refused("debug/shot-1a2b.screenshots/3.png", "unauthorized", 401, {"Cookie": NAME + "=tossed"})
    # Only that shape of path, never through a symlink.
    for path in ("notes.png", "debug/../notes.png", "debug/shot-1a2b.screenshots/../../notes.png",
                 "debug/shot-1a2b.screenshots/3.PNG", "/etc/passwd", ".git/config",
                 "debug/shot-1a2b.screenshots/4.png", "debug/shot-1a2b.screenshots/5.png"):
        refused(path, "path_refused", 403)
    # A missing one is not found, and nothing keeps the answer.
    status, headers, body = shot("debug/shot-1a2b.screenshots/9.png")
    assert status == 404 and json.loads(body)["error"] == "not_found", (status, body)
    assert headers["cache-control"] == "no-store", headers
    status, _, body = get(base + "/v1/dashboard/screenshot", cookie)
    assert status == 400 and json.loads(body)["error"] == "missing_param", (status, body)
    status, _, body = get(base + "/v1/dashboard/screenshot?path=debug/shot-1a2b.screenshots/3.png&path=x", cookie)
    assert status == 400 and json.loads(body)["error"] == "bad_request", (status, body)
    refused("debug/shot-1a2b.screenshots/3.png", "method_not_allowed", 405, cookie, "POST")
    # Over the bound: refused, not sent.
    with open(os.path.join(shots, "6.png"), "wb") as f:
        f.write(b"\x89PNG" + b"\0" * (8 << 20))
    refused("debug/shot-1a2b.screenshots/6.png", "file_too_large", 413)
    check_screenshot_flood(base, value, os.path.join(shots, "7.png"))


def check_screenshot_flood(base, value, path):
    """48 dashboards' requests for an 8 MiB screenshot at once: at most 16 are read at a time, the
    rest refused by name (each answer whole, or too_many_requests), and the slots come back."""
    big = b"\x89PNG" + os.urandom((8 << 20) - 4)
    with open(path, "wb") as f:
        f.write(big)
    u = urllib.parse.urlsplit(base)
    request = ("GET /v1/dashboard/screenshot?path=debug/shot-1a2b.screenshots/7.png HTTP/1.1\r\nHost: %s:%d\r\n"
               "Cookie: %s=%s\r\nConnection: close\r\n\r\n" % (u.hostname, u.port, NAME, value)).encode()
    socks = [socket.create_connection((u.hostname, u.port), timeout=60) for _ in range(48)]
    for s in socks:
        s.sendall(request)
    answers = []
    for s in socks:
        data = b""
        while chunk := s.recv(1 << 20):
            data += chunk
        s.close()
        head, _, body = data.partition(b"\r\n\r\n")
        answers.append((int(head.split(b" ", 2)[1]), body))
    for status, body in answers:
        assert (status == 200 and body == big) or (status == 429 and json.loads(body)["error"] == "too_many_requests"), \
            (status, body[:100])
    assert any(status == 429 for status, _ in answers), [status for status, _ in answers]
    status, _, body = get(base + "/v1/dashboard/screenshot?path=debug/shot-1a2b.screenshots/7.png",
                          {"Cookie": NAME + "=" + value})
    assert status == 200 and body == big, status


def check_new_url(server, cookie_text, url):
    """`dashboard` (POST /v1/dashboard-url, the cookie) mints another sign-in URL."""
    base = url.split("?")[0]
    status, _, _ = get(base + "v1/dashboard-url", method="POST")
    assert status == 401
    status, _, body = get(base + "v1/dashboard-url", {"Authorization": "Bearer " + cookie_text.strip(),
                                                      "Content-Type": "application/json"}, "POST", "{}")
    assert status == 200, (status, body)
    fresh = json.loads(body)["url"]
    assert fresh.startswith(base + "?token=") and fresh != url
    return sign_in(fresh)


def check_command(root, url):
    """`editgate dashboard` prints one more, from the workspace."""
    out = subprocess.run([EDITGATE, "dashboard", "--root", root], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    fresh = out.stdout.strip()
    assert fresh.startswith(url.split("?")[0] + "?token=") and fresh != url, fresh
    return sign_in(fresh)


def check_file_output():
    """Serve's output into a file (as `editgate mcp` starts it, into serve.log): the URL there is a viewer's."""
    with tempfile.NamedTemporaryFile("w+") as out:
        with serving(out) as (_, server, _, url):
            out.seek(0)
            assert "looks only" in out.read()
            value = sign_in(url)
            asyncio.run(check_viewer(server, value, url.split("?")[0].rstrip("/")))


def main():
    with serving() as (root, server, cookie_text, url):
        assert url.startswith(server["http"] + "?token=") or url.startswith(server["http"].rstrip("/") + "/?token="), url
        value = check_sign_in(url)
        base = url.split("?")[0].rstrip("/")
        asyncio.run(check_socket(server, cookie_text, url, value))
        asyncio.run(check_tossed(server, base, value))
        check_screenshot(root, base, value)
        asyncio.run(check_viewer(server, check_new_url(server, cookie_text, url), base))
        asyncio.run(check_viewer(server, check_command(root, url), base))
    check_file_output()
    print("dashboard door: ok")


if __name__ == "__main__":
    main()
