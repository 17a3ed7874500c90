#!/usr/bin/env python3
"""load-file, load-source, reload, modules and unload as a client that knows
only the protocol reference plays them against the built-in Node page:
a workspace file runs in the page and is listed, runs again after it
changed, is forgotten; hostile paths are refused before anything runs, and
a file name cannot smuggle code into the line that names the file.

Usage: ws_seed_modules.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import glob
import os
import subprocess
import sys

from seed_client import connected, gateway, places

COUNTER_V1 = """var Counter = class Counter {
  constructor() { this.count = 0; }
  increment() { return ++this.count; }
};
console.log('counter loaded');
'counter v1'
"""

COUNTER_V2 = COUNTER_V1.replace("++this.count", "this.count += 2").replace("v1", "v2")

SMUGGLER = "x\nglobalThis.smuggled = 1; var js"


def blob(root, path):
    return subprocess.run(["git", "hash-object", path], cwd=root, check=True, capture_output=True,
                          text=True).stdout.strip()


async def refused(s, rid, params, reason):
    parts, r = await s.call({"op": "load-file", "id": rid, **params})
    assert parts == [] and r["status"] == ["done", "error"] and r["reason"] == reason, (params, r)
    return r


async def play(root, where, server, cookie_text):
    async with connected(server, cookie_text) as s:
        await s.node_page()
        _, d = await s.call({"op": "describe", "id": "d"})
        for op in ("load-file", "load-source", "reload", "modules", "unload"):
            assert op in d["ops"], op
        assert d["ops"]["load-file"]["params"] == ["path"], d["ops"]["load-file"]

        # load-file: the file runs in the default page and is listed.
        _, r = await s.call({"op": "load-file", "id": "msg-004", "path": "examples/counter.js"})
        assert r["status"] == ["done"] and r["value"] == "counter v1", r
        assert r["module"] == "examples/counter.js" and r["blob"] == blob(root, "examples/counter.js"), r
        _, e = await s.call({"op": "eval", "id": "e1", "code": "new Counter().increment()"})
        assert e["value"] == 1, e
        _, m = await s.call({"op": "modules", "id": "msg-030"})
        assert [x["name"] for x in m["modules"]] == ["counter"], m
        listed = m["modules"][0]
        assert listed["source_file"] == "examples/counter.js" and isinstance(listed["load_time"], int), listed
        assert listed["time_ago"].endswith(" ago"), listed

        # The file changes; reload by the module's name runs the new text.
        with open(os.path.join(root, "examples/counter.js"), "w") as f:
            f.write(COUNTER_V2)
        _, r = await s.call({"op": "reload", "id": "msg-005", "module": "counter"})
        assert r["status"] == ["done"] and r["value"] == "counter v2", r
        _, e = await s.call({"op": "eval", "id": "e2", "code": "new Counter().increment()"})
        assert e["value"] == 2, e
        _, m = await s.call({"op": "modules", "id": "m2"})
        assert len(m["modules"]) == 1 and m["modules"][0]["blob"] == blob(root, "examples/counter.js"), m

        # load-source: inline source, an eval.
        _, r = await s.call({"op": "load-source", "id": "msg-006", "source": "var twice = (x) => x * 2; twice(21)"})
        assert r["status"] == ["done"] and r["value"] == 42, r

        # unload forgets it; a second unload, or a reload by its name, is refused by name.
        _, u = await s.call({"op": "unload", "id": "msg-031", "module": "counter"})
        assert u["status"] == ["done"] and u["value"] == "ok", u
        _, m = await s.call({"op": "modules", "id": "m3"})
        assert m["modules"] == [], m
        _, u = await s.call({"op": "unload", "id": "msg-032", "module": "counter"})
        assert u["status"] == ["done", "error"] and u["reason"] == "module_not_loaded", u
        assert u["error"].startswith("module_not_loaded: counter"), u
        _, r = await s.call({"op": "reload", "id": "msg-033", "module": "counter"})
        assert r["reason"] == "module_not_loaded", r

        # Paths as edits take them: nothing outside the workspace or under .git
        # (the agents' files in .git/editgate/ included); the state folder's
        # cookie, outside the workspace, neither by its path nor in an error.
        await refused(s, "h1", {"path": "../outside.js"}, "bad_request")
        r = await refused(s, "h2", {"path": ".git/HEAD"}, "bad_request")
        assert "protected_path" in r["error"] and "refs/heads/main" not in r["error"], r
        await refused(s, "h3", {"path": ".git/config"}, "bad_request")
        r = await refused(s, "h3a", {"path": ".git/editgate/pages"}, "bad_request")
        assert "protected_path" in r["error"], r
        r = await refused(s, "h3b", {"path": where["cookie"]}, "bad_request")
        assert cookie_text.strip() not in r["error"], r
        await refused(s, "h4", {"path": "missing.js"}, "not_found")
        await refused(s, "h5", {"path": "bin.js"}, "bad_request")
        # A newline in the file's name stays in the comment that names it.
        _, r = await s.call({"op": "load-file", "id": "h6", "path": SMUGGLER})
        assert r["status"] == ["done"] and r["value"] == "harmless", r
        _, e = await s.call({"op": "eval", "id": "e3", "code": "typeof smuggled"})
        assert e["value"] == "undefined", e
        await s.nothing_more()


def main():
    files = {"examples/counter.js": COUNTER_V1, "bin.js": "var a = 1;\0\n"}
    with gateway(sys.argv[1], files) as (root, server, cookie_text):
        with open(os.path.join(root, SMUGGLER), "w") as f:
            f.write("'harmless'\n")
        with open(os.path.join(os.path.dirname(root), "outside.js"), "w") as f:
            f.write("globalThis.outside = 1;\n")
        try:
            asyncio.run(play(root, places(sys.argv[1], root), server, cookie_text))
        finally:
            os.remove(os.path.join(os.path.dirname(root), "outside.js"))
        # The chat log shows what ran: the file's text and the line naming it.
        logs = glob.glob(os.path.join(root, "debug", "node-*.md"))
        assert len(logs) == 1, logs
        with open(logs[0]) as f:
            log = f.read()
        assert "//# sourceURL=examples/counter.js" in log and "this.count += 2" in log, log
        assert "//# sourceURL=x%0AglobalThis.smuggled" in log, log
    print("ok")


if __name__ == "__main__":
    main()
