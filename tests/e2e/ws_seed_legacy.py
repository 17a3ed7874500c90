#!/usr/bin/env python3
"""The legacy message format and the gateway-level ops of the agents'
WebSocket, as an independent client sees them: Python's `websockets`
(Debian's python3-websockets), not the project's own client.

Starts `editgate serve` on a fresh workspace, connects to its /ws as the
protocol's handshake says, and plays the legacy format ({"type":"eval",
"expression":"1 + 2"} answered {"type":"result","value":3}, its errors, a
legacy type whose op is unknown, the auth message sent again), describe's
versions and language_info, interrupt by the eval's id (running, queued,
not running), and the pages as actors: actors, inspect, kill of the Node
page and its return; asserting the shapes and one final message each.

Usage: ws_seed_legacy.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import json
import sys
import time

import seed_client
from seed_client import connected, gateway


class Session(seed_client.Session):
    async def legacy(self, msg):
        """A legacy request: one message answers it, with no status."""
        await self.ws.send(json.dumps(msg))
        m = await self.recv()
        assert "status" not in m, m
        return m


async def legacy_format(s):
    # The seed's example, message for message.
    r = await s.legacy({"type": "eval", "expression": "1 + 2"})
    assert r["type"] == "result" and r["value"] == 3, r
    assert "output" not in r, r
    # What the code printed is gathered into the one reply.
    r = await s.legacy({"type": "eval", "expression": "console.log('Hello'); console.log('world'); 7"})
    # (Each console write's text; its line end where the page's events carry one.)
    assert r["type"] == "result" and r["value"] == 7 and r["output"].replace("\n", "") == "Helloworld", r
    # An exception is an error in the legacy shape, with what was printed first.
    r = await s.legacy({"type": "eval", "expression": "console.log('before'); null.x"})
    assert r["type"] == "error" and "TypeError" in r["message"] and r["output"].rstrip("\n") == "before", r
    # A legacy type that is none, and the handshake's message sent again.
    r = await s.legacy({"type": "frobnicate"})
    assert r["type"] == "error" and r["reason"] == "unknown_op" and "eval, clear" in r["message"], r
    r = await s.legacy({"type": "auth", "cookie": "x"})
    assert r["type"] == "error" and r["reason"] == "bad_request" and "auth" in r["message"], r
    # A legacy eval without its expression: the op's own check.
    r = await s.legacy({"type": "eval"})
    assert r["type"] == "error" and r["reason"] == "missing_param" and "code" in r["message"], r
    # An id, when a legacy client sends one, is echoed.
    r = await s.legacy({"type": "eval", "expression": "2 * 21", "id": "legacy-1"})
    assert r == {**r, "type": "result", "value": 42, "id": "legacy-1"}, r
    # Legacy types map onto the op table by name: each answers in the legacy
    # shape, an op the table has with its reply, one it lacks unknown_op.
    d = (await s.call({"op": "describe", "id": "d-legacy"}))[1]
    for legacy_type, op in (("clear", "clear"), ("bindings", "bindings"), ("modules", "modules"),
                            ("actors", "actors"), ("unload", "unload"), ("load", "load-file")):
        r = await s.legacy({"type": legacy_type})
        assert r["type"] in ("result", "error"), r
        if op not in d["ops"]:
            assert r["type"] == "error" and r["reason"] == "unknown_op" and op in r["message"], r
    await s.nothing_more()


async def describe(s):
    parts, d = await s.call({"op": "describe", "id": "msg-040"})
    assert parts == [] and d["status"] == ["done"], d
    node_version = (await s.call({"op": "eval", "id": "v", "code": "process.versions.node"}))[1]["value"]
    assert d["versions"]["protocol"] == "1.0" and d["versions"]["editgate"], d["versions"]
    assert d["versions"]["node"] == node_version, (d["versions"], node_version)
    info = d["language_info"]
    for kind in ("node", "browser"):
        assert info[kind]["name"] == "javascript" and info[kind]["file_extension"] == ".js", info
        assert info[kind]["mimetype"] == "text/javascript" and info[kind]["version"], info
    assert info["node"]["version"] == node_version, info
    for op in ("actors", "inspect", "kill", "interrupt"):
        assert op in d["ops"], op
    assert d["ops"]["interrupt"]["params"] == [] and "interrupt-id" in d["ops"]["interrupt"]["optional"], d["ops"]


async def until_final(s, ids):
    """Reads until each request in `ids` has its final message: those, by id."""
    finals, parts = {}, {i: [] for i in ids}
    while len(finals) < len(ids):
        m = await s.recv()
        assert m.get("id") in ids, m
        if "done" in m.get("status", []):
            assert m["id"] not in finals, ("a second final message", m)
            finals[m["id"]] = m
        else:
            parts[m["id"]].append(m)
    return finals, parts


async def interrupt_by_id(s):
    # Nothing runs: the default page is idle, whatever the id names.
    _, idle = await s.call({"op": "interrupt", "id": "int-0"})
    assert idle["status"] == ["done", "session-idle"], idle
    _, idle = await s.call({"op": "interrupt", "id": "int-1", "interrupt-id": "nothing"})
    assert idle["status"] == ["done", "session-idle"], idle
    # A long eval, named by its id from another request.
    long_eval = "console.log('started'); await new Promise(r => setTimeout(r, 60000))"
    await s.ws.send(json.dumps({"op": "eval", "id": "long-1", "code": long_eval}))
    started = await s.recv()
    assert started["id"] == "long-1" and started["out"].startswith("started"), started
    # Another id is not the one running: nREPL's interrupt-id-mismatch.
    _, other = await s.call({"op": "interrupt", "id": "int-2", "interrupt-id": "long-9"})
    assert other["status"] == ["done", "error", "interrupt-id-mismatch"], other
    await s.ws.send(json.dumps({"op": "interrupt", "id": "int-3", "interrupt-id": "long-1"}))
    finals, _ = await until_final(s, {"int-3", "long-1"})
    assert finals["int-3"]["status"] == ["done"] and finals["int-3"]["result"] == "interrupted", finals
    assert "interrupted" in finals["long-1"]["status"] and "done" in finals["long-1"]["status"], finals
    # A queued eval named by its id leaves the queue and never starts.
    await s.ws.send(json.dumps({"op": "eval", "id": "long-2", "code": long_eval}))
    assert (await s.recv())["id"] == "long-2"
    await s.ws.send(json.dumps({"op": "eval", "id": "queued-1", "code": "'never'"}))
    await s.ws.send(json.dumps({"op": "interrupt", "id": "int-4", "interrupt-id": "queued-1"}))
    finals, _ = await until_final(s, {"int-4", "queued-1"})
    assert finals["int-4"]["result"] == "interrupted", finals
    assert "interrupted" in finals["queued-1"]["status"] and "value" not in finals["queued-1"], finals
    await s.ws.send(json.dumps({"op": "interrupt", "id": "int-5", "interrupt-id": "long-2"}))
    finals, _ = await until_final(s, {"int-5", "long-2"})
    assert "interrupted" in finals["long-2"]["status"], finals
    # A number as the id, as a client may send it; the string "77" is another id.
    await s.ws.send(json.dumps({"op": "eval", "id": 77, "code": long_eval}))
    assert (await s.recv())["id"] == 77
    _, other = await s.call({"op": "interrupt", "id": "int-6", "interrupt-id": "77"})
    assert other["status"] == ["done", "error", "interrupt-id-mismatch"], other
    await s.ws.send(json.dumps({"op": "interrupt", "id": "int-7", "interrupt-id": 77}))
    finals, _ = await until_final(s, {"int-7", 77})
    assert finals["int-7"]["result"] == "interrupted" and "interrupted" in finals[77]["status"], finals
    await s.nothing_more()


async def back_again(s, before):
    """The Node page after a kill: connected again, with a new spawned_at."""
    for i in range(400):
        _, a = await s.call({"op": "actors", "id": "back-%d" % i})
        nodes = [x for x in a["actors"] if x["class"] == "node"]
        if nodes and nodes[0]["spawned_at"] > before["spawned_at"]:
            return nodes[0]
        await asyncio.sleep(0.05)
    raise AssertionError("the Node page did not come back")


async def actors(s):
    _, a = await s.call({"op": "actors", "id": "msg-020"})
    nodes = [x for x in a["actors"] if x["class"] == "node"]
    assert len(nodes) == 1, a
    node = nodes[0]
    assert node["pid"].startswith("node-") and node["module"] == "debug/" + node["pid"] + ".md", node
    assert abs(node["spawned_at"] - time.time()) < 600, node
    # inspect: its state, with its recent events (the long eval's output).
    _, i = await s.call({"op": "inspect", "id": "msg-021", "actor": node["pid"]})
    state = i["state"]
    assert state["page"] == node["pid"] and state["kind"] == "node" and state["queued"] == 0, state
    assert state["state"] == "idle" and "job" not in state, state
    assert any(e["text"].startswith("started") for e in state["recent_events"]), state
    _, missing = await s.call({"op": "inspect", "id": "msg-021b", "actor": "no-such-page"})
    assert missing["status"] == ["done", "error"] and missing["reason"] == "not_found", missing
    # kill: the Node page's process ends, the gateway starts it again on the same log.
    await s.call({"op": "eval", "id": "set", "code": "globalThis.before_kill = 1"})
    _, k = await s.call({"op": "kill", "id": "msg-022", "actor": node["pid"]})
    assert k["status"] == ["done"] and k["value"] == "ok", k
    again = await back_again(s, node)
    assert again["pid"] == node["pid"], (node, again)
    _, e = await s.call({"op": "eval", "id": "after", "code": "typeof globalThis.before_kill"})
    assert e["value"] == "undefined", e  # a new process
    # The legacy kill, pid for actor.
    r = await s.legacy({"type": "kill", "pid": node["pid"]})
    assert r["type"] == "result" and r["value"] == "ok", r
    await back_again(s, again)
    _, e = await s.call({"op": "eval", "id": "after-2", "code": "6 * 7"})
    assert e["value"] == 42, e
    await s.nothing_more()


async def play(server, cookie_text):
    async with connected(server, cookie_text, Session) as s:
        await s.node_page()
        await legacy_format(s)
        await describe(s)
        await interrupt_by_id(s)
        await actors(s)


def main():
    with gateway(sys.argv[1], {"a.txt": "alpha\n"}) as (_, server, cookie_text):
        asyncio.run(play(server, cookie_text))
    print("ok")


if __name__ == "__main__":
    main()
