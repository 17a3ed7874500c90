#!/usr/bin/env python3
"""The WebSocket protocol's page ops against a browser tab, as an independent client sees them:
Python's `websockets` (Debian's python3-websockets), not the project's own
client, and a real tab: Debian's headless Chromium on a page served from
127.0.0.1 that loads the gateway's /adapter.js.

Binds the session to the tab with `use`, then plays what the Node page's
clients play: eval, bindings, clear (a tab says what it could not delete),
load-file / modules / reload / unload / load-source (and a path that leaves
the workspace), interrupt by the eval's id and with nothing running,
sessions, actors, inspect, kill (the tab's adapter connects again, to the
same log) and describe's language_info for a tab.

Usage: ws_seed_browser.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import contextlib
import functools
import http.server
import itertools
import os
import subprocess
import sys
import tempfile
import threading

from seed_client import Session, connected, gateway

ids = itertools.count(1)
GREET = "function greet(name) { return 'hi ' + name; }\nglobalThis.loads = (globalThis.loads || 0) + 1;\n'loaded'\n"


def chromium():
    for name in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.access(name, os.X_OK):
            return name
    return None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def tab(gateway_port, workspace):
    """A page on 127.0.0.1 that loads /adapter.js for `workspace`, open in headless Chromium."""
    with tempfile.TemporaryDirectory() as site, tempfile.TemporaryDirectory() as profile:
        with open(os.path.join(site, "index.html"), "w") as f:
            f.write("<!doctype html><title>Seed Tab</title><body><script src=\"http://127.0.0.1:%d/adapter.js?workspace=%s\" "
                    "crossorigin></script></body>" % (gateway_port, workspace))
        handler = functools.partial(QuietHandler, directory=site)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        browser = subprocess.Popen(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile, "http://127.0.0.1:%d/index.html" % server.server_address[1]],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            yield
        finally:
            os.killpg(browser.pid, 9)
            browser.wait()
            server.shutdown()


class Client(Session):
    async def ask(self, op, **fields):
        return await self.call({"op": op, "id": "m-%d" % next(ids), **fields})

    async def ok(self, op, **fields):
        parts, final = await self.ask(op, **fields)
        assert final["status"] == ["done"], final
        return final

    async def browser_page(self, name=None):
        """The live tab's entry in pages (the tab named `name`, when given)."""
        for _ in range(600):
            for p in (await self.ok("pages"))["pages"]:
                if p["kind"] == "browser" and p["state"] != "disconnected" and name in (None, p["page"]):
                    return p
            await asyncio.sleep(0.05)
        raise AssertionError("no browser tab connected")


async def bindings_and_clear(c):
    await c.ok("eval", code="var declared = 1; globalThis.made = 'x'; window.twice = (n) => 2 * n; "
                    "Object.defineProperty(window, 'kept', {value: 1, enumerable: true}); 0")
    b = await c.ok("bindings")
    for name, value in (("declared", 1), ("kept", 1), ("made", "x")):
        assert b["bindings"].get(name) == value, b
    assert "twice" in b["bindings"], b
    cleared = await c.ok("clear")
    # A non-configurable property of window cannot be deleted: the tab says so.
    assert cleared["value"] == "ok" and cleared["kept"] == ["kept"], cleared
    b = await c.ok("bindings")
    assert list(b["bindings"]) == ["kept"], b
    gone = await c.ok("eval", code="typeof made")
    assert gone["value"] == "undefined", gone


async def modules(c):
    loaded = await c.ok("load-file", path="lib/greet.js")
    assert loaded["value"] == "loaded" and loaded["module"] == "lib/greet.js" and loaded["blob"], loaded
    used = await c.ok("eval", code="greet('tab')")
    assert used["value"] == "hi tab", used
    listed = (await c.ok("modules"))["modules"]
    assert [(m["name"], m["source_file"]) for m in listed] == [("greet", "lib/greet.js")], listed
    again = await c.ok("reload", module="greet")
    assert again["value"] == "loaded", again
    assert (await c.ok("eval", code="loads"))["value"] == 2
    assert (await c.ok("unload", module="greet"))["value"] == "ok"
    assert (await c.ok("modules"))["modules"] == []
    _, missing = await c.ask("unload", module="greet")
    assert missing["reason"] == "module_not_loaded", missing
    _, escape = await c.ask("load-file", path="../outside.js")
    assert escape["reason"] == "bad_request" and "path_escape" in escape["error"], escape
    source = await c.ok("load-source", source="6 * 7")
    assert source["value"] == 42, source


async def interrupts(c):
    _, idle = await c.ask("interrupt")
    assert idle["status"] == ["done", "session-idle"], idle
    await c.send({"op": "eval", "id": "waits", "code": "console.log('waiting'); await new Promise(() => {})"})
    first = await c.recv()
    assert first["id"] == "waits" and first["out"] == "waiting\n", first
    await c.send({"op": "interrupt", "id": "int-1", "interrupt-id": "waits"})
    finals = {}
    while len(finals) < 2:
        m = await c.recv()
        assert m["id"] in ("waits", "int-1"), m
        if "done" in m.get("status", []):
            finals[m["id"]] = m
    assert finals["int-1"]["result"] == "interrupted", finals
    assert "interrupted" in finals["waits"]["status"], finals
    after = await c.ok("eval", code="'still here'")
    assert after["value"] == "still here", after


async def actors_and_kill(c, page, root):
    actors = (await c.ok("actors"))["actors"]
    mine = [a for a in actors if a["pid"] == page["page"]]
    assert len(mine) == 1 and mine[0]["class"] == "browser" and mine[0]["module"] == page["url"], actors
    state = (await c.ok("inspect", actor=page["page"]))["state"]
    assert state["kind"] == "browser" and state["page"] == page["page"], state
    killed = await c.ok("kill", actor=page["page"])
    assert killed["value"] == "ok" and killed["page"] == page["page"] and killed["restart"], killed
    # The connection drops (the kill's reply can come first), then the
    # adapter connects again, as the same instance: the same name and log.
    for _ in range(40):
        pages = (await c.ok("pages"))["pages"]
        if any(p["page"] == page["page"] and p["state"] == "disconnected" for p in pages):
            break
        await asyncio.sleep(0.05)
    for _ in range(400):
        pages = (await c.ok("pages"))["pages"]
        if any(p["page"] == page["page"] and p["state"] != "disconnected" for p in pages):
            break
        await asyncio.sleep(0.05)
    back = await c.ok("eval", code="1 + 1")
    assert back["value"] == 2 and back["page"] == page["page"], back
    with open(os.path.join(root, page["log"])) as f:
        log = f.read()
    assert "was stopped by an agent's kill" in log, log


async def play(root, server, cookie):
    async with connected(server, cookie, Client) as c:
        page = await c.browser_page()
        used = await c.ok("use", page=page["page"])
        assert used["page"] == page["page"], used
        title = await c.ok("eval", code="document.title")
        assert title["value"] == "Seed Tab" and title["page"] == page["page"], title
        mine = [s for s in (await c.ok("sessions"))["sessions"] if s.get("current")]
        assert len(mine) == 1 and mine[0]["page"] == page["page"], mine
        info = (await c.ok("describe"))["language_info"]
        assert info["browser"]["name"] == "javascript", info
        await bindings_and_clear(c)
        await modules(c)
        await interrupts(c)
        await actors_and_kill(c, page, root)
        await c.nothing_more()


def main():
    if chromium() is None:
        sys.exit("chromium is not installed (scripts/deps.sh installs it)")
    with gateway(sys.argv[1], {"lib/greet.js": GREET}) as (root, server, cookie):
        with tab(server["port"], server["workspace_id"]):
            asyncio.run(play(root, server, cookie))
    print("ok")


if __name__ == "__main__":
    main()
