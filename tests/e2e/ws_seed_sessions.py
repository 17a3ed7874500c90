#!/usr/bin/env python3
"""Sessions and realms as an independent client sees them: Python's
`websockets` (Debian's python3-websockets), not the project's own client.

Starts `editgate serve` on a fresh workspace and plays the protocol's
session ops with JavaScript in the built-in Node page: clone (a realm, a
session bound to it), eval in the new realm (a global set there is not
seen by the default page), bindings, clear, bindings empty, close; use;
resume after a reconnect (and a resume that cannot be); a realm used,
interrupted and closed from another connection, and an interrupt of
another connection's eval; and the attacks: resuming a session a live
connection holds, closing the default page's session,
clones up to the realm bound (a named error) and past it; an interrupt
of a job that awaits or waits behind another realm's code leaves that
code running. A second gateway with --realm-idle 1 closes an idle realm.

Usage: ws_seed_sessions.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import itertools
import json
import os
import sys

import websockets

import seed_client
from seed_client import gateway

ids = itertools.count(1)


class Conn(seed_client.Session):
    """One connection; sends one request at a time and reads until its final message."""

    @classmethod
    async def open(cls, server, cookie, resume=None):
        c = cls(await websockets.connect(server["ws"], max_size=None))
        await c.handshake(cookie, resume)
        return c

    async def call(self, op, **fields):
        return (await super().call({"op": op, "id": "m-%d" % next(ids), **fields}))[1]

    async def ok(self, op, **fields):
        m = await self.call(op, **fields)
        assert m["status"] == ["done"], m
        return m

    async def close(self):
        await self.ws.close()


async def wait_node(c):
    for _ in range(200):
        pages = await c.ok("pages")
        if any(p["page"].startswith("node-") and p["state"] != "disconnected" for p in pages["pages"]):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the Node page did not start")


async def realm_round(c):
    """clone -> eval in the new realm -> bindings -> clear -> bindings empty -> close."""
    clone = await c.ok("clone")
    sid = clone["value"]
    assert isinstance(sid, str) and sid != c.session, clone
    e = await c.ok("eval", session=sid, code="globalThis.answer = 42; var greeting = 'hi'; let later = [1]; answer")
    assert e["value"] == 42 and e["session"] == sid, e
    assert e["page"].startswith("node-1-"), e
    # The default page has globals of its own.
    d = await c.ok("eval", code="typeof answer")
    assert d["value"] == "undefined" and not d["page"].startswith("node-1-"), d
    b = await c.ok("bindings", session=sid)
    assert b["bindings"] == {"answer": 42, "greeting": "hi", "later": [1]}, b
    cl = await c.ok("clear", session=sid)
    assert cl["value"] == "ok", cl
    b = await c.ok("bindings", session=sid)
    assert b["bindings"] == {}, b
    # The default page: a top-level let is a binding, which clear cannot delete and names.
    await c.ok("eval", code="let lexical = 'kept'; const fixed = 2; class Shape {}; globalThis.prop = 1")
    b = (await c.ok("bindings"))["bindings"]
    assert b["lexical"] == "kept" and b["fixed"] == 2 and b["prop"] == 1 and "Shape" in b, b
    cl = await c.ok("clear")
    assert {"lexical", "fixed", "Shape"} <= set(cl["kept"]) and "prop" not in cl["kept"], cl
    b = (await c.ok("bindings"))["bindings"]
    assert "prop" not in b and b["lexical"] == "kept", b
    gone = await c.ok("eval", session=sid, code="typeof answer")
    assert gone["value"] == "undefined", gone
    listed = (await c.ok("sessions"))["sessions"]
    mine = [s for s in listed if s["id"] == sid]
    assert len(mine) == 1 and mine[0]["page"] == e["page"], listed
    for field in ("id", "page", "agent", "created", "last_active"):
        assert field in mine[0], mine
    closed = await c.ok("close", session=sid)
    assert closed["value"] == "ok", closed
    assert sid not in [s["id"] for s in (await c.ok("sessions"))["sessions"]]
    pages = (await c.ok("pages"))["pages"]
    assert [p["state"] for p in pages if p["page"] == e["page"]] == ["disconnected"], pages
    again = await c.call("close", session=sid)
    assert again["reason"] == "not_found", again
    # The closed realm's session, mistyped or stale: its code never runs in
    # the default page instead; an op that addresses no page takes the id
    # as the name its commits carry.
    stale = await c.call("eval", session=sid, code="globalThis.misplaced = 1")
    assert stale["reason"] == "not_found" and "no session " + sid in stale["error"], stale
    assert (await c.ok("eval", code="typeof misplaced"))["value"] == "undefined"
    named = await c.ok("history", session="named-by-the-agent", limit=1)
    assert "commits" in named, named


async def use_and_resume(server, cookie, a):
    clone = await a.ok("clone")
    realm = (await a.ok("eval", session=clone["value"], code="globalThis.where = 'realm'; where"))["page"]
    used = await a.ok("use", page=realm)
    assert used["value"] == "ok" and used["page"] == realm, used
    e = await a.ok("eval", code="where")
    assert e["value"] == "realm" and e["page"] == realm, e
    sid = a.session
    await a.close()
    # The connection is gone; its session is taken back with its page.
    for _ in range(100):
        b = await Conn.open(server, cookie, resume=sid)
        if b.started.get("resumed"):
            break
        await b.close()  # the gateway had not seen the old connection end yet
        await asyncio.sleep(0.05)
    assert b.started["resumed"] is True and b.session == sid and b.started["page"] == realm, b.started
    e = await b.ok("eval", code="where")
    assert e["value"] == "realm", e
    # A session that is not there: a new one, and the reason.
    n = await Conn.open(server, cookie, resume="no-such-session")
    assert n.started["resumed"] is False and n.started["reason"] == "not_found" and n.session != "no-such-session", n.started
    await n.close()
    await b.ok("close", session=clone["value"])
    return b


async def across_connections(server, cookie, a):
    """A session is addressed by its id: a realm one connection opened is used,
    interrupted and closed from another (a client that connects per call); an
    interrupt naming another connection's session ends the eval running there
    (a command line's Ctrl-C)."""
    b = await Conn.open(server, cookie)
    realm = (await a.ok("clone"))["value"]
    e = await b.ok("eval", session=realm, code="globalThis.mark = 'from b'; mark")
    assert e["value"] == "from b" and e["session"] == realm, e
    assert (await a.ok("eval", session=realm, code="mark"))["value"] == "from b"
    # a's eval spins in the realm; b's interrupt names the realm's session.
    await a.ws.send(json.dumps({"op": "eval", "id": "spin-a", "session": realm, "code": "while (true) {}",
                                "timeout": 30000}))
    await asyncio.sleep(0.3)
    stop = await b.ok("interrupt", session=realm)
    assert stop["result"] == "interrupted", stop
    got = await finals(a, {"spin-a"})
    assert "interrupted" in got["spin-a"]["status"], got
    # b closes the realm a opened; a's next use of it is refused, never run elsewhere.
    assert (await b.ok("close", session=realm))["value"] == "ok"
    gone = await a.call("eval", session=realm, code="1")
    assert gone["reason"] == "not_found", gone
    # Ctrl-C from another connection: c's own session, bound to the default page.
    c = await Conn.open(server, cookie)
    await c.ws.send(json.dumps({"op": "eval", "id": "spin-main", "code": "while (true) {}", "timeout": 30000}))
    await asyncio.sleep(0.3)
    stop = await b.ok("interrupt", session=c.session)
    assert stop["result"] == "interrupted", stop
    got = await finals(c, {"spin-main"})
    assert "interrupted" in got["spin-main"]["status"], got
    assert (await c.ok("eval", code="6 * 7"))["value"] == 42
    await b.close()
    await c.close()


async def attacks(server, cookie, a):
    other = await Conn.open(server, cookie)
    # Resuming a session a live connection holds starts a new one instead.
    taken = await Conn.open(server, cookie, resume=a.session)
    assert taken.started["resumed"] is False and taken.started["reason"] == "in_use", taken.started
    await taken.close()

    # Closing the session bound to the default page ends the session, not the page.
    await other.ok("close")
    assert other.session not in [s["id"] for s in (await a.ok("sessions"))["sessions"]]
    e = await other.ok("eval", code="6 * 7")
    assert e["value"] == 42 and e["page"].startswith("node-"), e
    await other.close()

    # Hundreds of clones: up to the bound, then a named error; closing makes room.
    made = []
    while True:
        r = await a.call("clone")
        if r["status"] != ["done"]:
            assert r["reason"] == "too_many_pages", r
            break
        made.append(r["value"])
        assert len(made) <= 1024, "no realm bound"
    assert len(made) >= 200, len(made)
    last = made[-1]
    e = await a.ok("eval", session=last, code="globalThis.n = 1; n")
    assert e["value"] == 1, e
    for sid in made:
        await a.ok("close", session=sid)
    r = await a.ok("clone")
    await a.ok("close", session=r["value"])


async def finals(c, want):
    """Reads the connection's messages until each id in `want` has its final one."""
    got = {}
    while len(got) < len(want):
        m = json.loads(await asyncio.wait_for(c.ws.recv(), 30))
        assert m.get("id") in want, ("a message of another request", m)
        if "done" in m.get("status", []):
            got[m["id"]] = m
    return got


async def interrupts_stay_in_their_realm(c):
    """The Node page and its realms share one thread: an interrupt of a job that
    awaits, or that waits behind another realm's code, must not stop that code."""
    realm = (await c.ok("clone"))["value"]
    busy = "const t = Date.now(); while (Date.now() - t < 800); 'finished'"
    # The realm's job awaits; the default page's runs synchronously.
    await c.ws.send(json.dumps({"op": "eval", "id": "awaits", "session": realm,
                                "code": "console.log('waiting'); await new Promise(() => {})"}))
    first = json.loads(await asyncio.wait_for(c.ws.recv(), 30))
    assert first["id"] == "awaits" and first["out"].startswith("waiting"), first
    await c.ws.send(json.dumps({"op": "eval", "id": "busy-1", "code": busy}))
    await asyncio.sleep(0.2)
    await c.ws.send(json.dumps({"op": "interrupt", "id": "int-a", "session": realm}))
    got = await finals(c, {"awaits", "busy-1", "int-a"})
    assert got["busy-1"]["status"] == ["done"] and got["busy-1"]["value"] == "finished", got
    assert "interrupted" in got["awaits"]["status"], got
    # The default page's job waits behind the realm's synchronous code.
    await c.ws.send(json.dumps({"op": "eval", "id": "busy-2", "session": realm, "code": busy}))
    await asyncio.sleep(0.2)
    await c.ws.send(json.dumps({"op": "eval", "id": "queued", "code": "await new Promise(() => {})"}))
    await c.ws.send(json.dumps({"op": "interrupt", "id": "int-q"}))
    got = await finals(c, {"busy-2", "queued", "int-q"})
    assert got["busy-2"]["status"] == ["done"] and got["busy-2"]["value"] == "finished", got
    assert "interrupted" in got["queued"]["status"], got
    # A realm's own synchronous code is what its interrupt stops.
    await c.ws.send(json.dumps({"op": "eval", "id": "spins", "session": realm, "code": "while (true) {}",
                                "timeout": 30000}))
    await asyncio.sleep(0.3)
    await c.ws.send(json.dumps({"op": "interrupt", "id": "int-s", "session": realm}))
    got = await finals(c, {"spins", "int-s"})
    assert got["int-s"]["result"] == "interrupted", got
    assert "interrupted" in got["spins"]["status"] and got["spins"]["exception"]["name"] == "Interrupted", got
    # A realm's job that awaits: the realm answers its interrupt (not the Node page's main page).
    await c.ws.send(json.dumps({"op": "eval", "id": "waits", "session": realm, "code": "await new Promise(() => {})"}))
    await asyncio.sleep(0.2)
    await c.ws.send(json.dumps({"op": "interrupt", "id": "int-w", "session": realm}))
    got = await finals(c, {"waits", "int-w"})
    assert got["int-w"]["result"] == "interrupted" and "abandoned" in got["int-w"]["message"], got
    await c.ok("close", session=realm)


async def kill_a_realm(c):
    """kill of a realm: a fresh context for the same session, page and log."""
    realm = (await c.ok("clone"))["value"]
    e = await c.ok("eval", session=realm, code="globalThis.before = 1; before")
    page = e["page"]
    await c.ws.send(json.dumps({"op": "eval", "id": "hangs", "session": realm, "code": "await new Promise(() => {})"}))
    await asyncio.sleep(0.2)
    await c.ws.send(json.dumps({"op": "kill", "id": "kill", "actor": page}))
    got = await finals(c, {"hangs", "kill"})
    assert got["kill"]["value"] == "ok" and got["kill"]["page"] == page, got
    assert got["hangs"]["reason"] == "context_destroyed", got
    for _ in range(200):
        after = await c.call("eval", session=realm, code="typeof before")
        if after["status"] == ["done"]:
            break
        await asyncio.sleep(0.05)
    assert after["value"] == "undefined" and after["page"] == page, after
    await c.ok("close", session=realm)


async def clone_of_a_busy_page(c, root):
    """A Node page held by synchronous code cannot make a realm: clone fails by name."""
    # It spins until the file the test makes once the clone has failed.
    busy = "(() => { while (!require('fs').existsSync('release-the-page')); return 'done'; })()"
    await c.ws.send(json.dumps({"op": "eval", "id": "hold", "code": busy, "timeout": 60000}))
    await asyncio.sleep(0.2)
    failed = await c.call("clone")
    assert failed.get("reason") == "timeout", failed
    open(os.path.join(root, "release-the-page"), "w").close()
    got = await finals(c, {"hold"})
    assert got["hold"]["value"] == "done", got
    made = await c.ok("clone")
    await c.ok("close", session=made["value"])


async def play(root, server, cookie):
    a = await Conn.open(server, cookie)
    await wait_node(a)
    await realm_round(a)
    await interrupts_stay_in_their_realm(a)
    await kill_a_realm(a)
    await clone_of_a_busy_page(a, root)
    a = await use_and_resume(server, cookie, a)
    await across_connections(server, cookie, a)
    await attacks(server, cookie, a)
    await a.close()


async def idle_realms(server, cookie):
    """serve --realm-idle 1: a realm nobody sends a request for is closed with its
    session, though its connection is still there; one whose request runs past
    that time is not."""
    a = await Conn.open(server, cookie)
    await wait_node(a)
    busy = (await a.ok("clone"))["value"]
    slow = await a.ok("eval", session=busy, code="await new Promise((r) => setTimeout(r, 2500)); 'kept'")
    assert slow["value"] == "kept", slow
    idle = await a.ok("clone")
    page = (await a.ok("eval", session=idle["value"], code="1"))["page"]
    for _ in range(200):
        ids = [s["id"] for s in (await a.ok("sessions"))["sessions"]]
        if idle["value"] not in ids:
            break
        await asyncio.sleep(0.05)
    assert idle["value"] not in ids and busy not in ids, ids
    pages = (await a.ok("pages"))["pages"]
    assert [p["state"] for p in pages if p["page"] == page] == ["disconnected"], pages
    refused = await a.call("eval", session=idle["value"], code="1")
    assert refused["reason"] == "not_found", refused
    await a.close()


def main():
    with gateway(sys.argv[1], {"a.txt": "alpha\n"}) as (root, server, cookie):
        asyncio.run(play(root, server, cookie))
    with gateway(sys.argv[1], {"a.txt": "alpha\n"}, ["--realm-idle", "1"]) as (root, server, cookie):
        asyncio.run(idle_realms(server, cookie))
    print("ok")


if __name__ == "__main__":
    main()
