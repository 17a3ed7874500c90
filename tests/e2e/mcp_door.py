#!/usr/bin/env python3
"""The MCP door (POST /mcp) as a client written from the MCP specification
sees it: raw HTTP from Python's standard library, no MCP SDK, no project code.

Both revisions on one endpoint: 2025-11-25 (initialize, Mcp-Session-Id,
ping, notifications/cancelled, DELETE) and 2026-07-28 (stateless _meta,
server/discover, the header checks and their codes, resultType and cache
hints). The tools end to end: an edit with a failing block (progress per
block, isError, the good block committed), a check that writes nothing,
evals in the Node page and in a realm, a cancelled endless eval (the realm
answers the next one), a result too large to send (a resource link that
resources/read returns whole). And the refusals: no cookie, a foreign
Origin or Host, GET, a batch, a session that is not there, a tool that is
not there, arguments of the wrong type.

Usage: mcp_door.py EDITGATE_BINARY. Exit 0 on success.
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

from seed_client import gateway

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
BLOCKS = """a.txt
```
««« EDIT
hello
═══════ REPL
world
»»» EDIT END
```
a.txt
```
««« EDIT
not in the file
═══════ REPL
x
»»» EDIT END
```
"""


class Door:
    def __init__(self, port, cookie):
        self.port = port
        self.cookie = cookie
        self.session = None
        self.ids = 0

    def post(self, body, headers=None, auth=True, raw=False):
        """One POST: (status, headers, [messages]) with SSE events unwrapped."""
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if auth:
            h["Authorization"] = "Bearer " + self.cookie
        if self.session:
            h["Mcp-Session-Id"] = self.session
            h["MCP-Protocol-Version"] = LEGACY
        h.update(headers or {})
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request("POST", "/mcp", body if raw else json.dumps(body), h)
        r = c.getresponse()
        data = r.read().decode()
        c.close()
        if r.getheader("Content-Type", "").startswith("text/event-stream"):
            msgs = [json.loads(line[6:]) for line in data.split("\n") if line.startswith("data: ")]
        else:
            msgs = [json.loads(data)] if data.strip() else []
        return r.status, r, msgs

    def request(self, method, params=None, headers=None):
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params is not None:
            body["params"] = params
        return self.post(body, headers)

    def modern(self, method, params=None, name=None, headers=None):
        params = dict(params or {})
        params["_meta"] = {**META, **params.get("_meta", {})}
        h = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if name is not None:
            h["Mcp-Name"] = name
        h.update(headers or {})
        return self.request(method, params, h)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def result_of(msgs):
    check(msgs and "result" in msgs[-1], "no result: %r" % (msgs,))
    return msgs[-1]["result"]


def legacy_session(door):
    status, r, msgs = door.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                                  "clientInfo": {"name": "mcp_door.py", "version": "1"}})
    check(status == 200, "initialize: %d" % status)
    res = result_of(msgs)
    check(res["protocolVersion"] == LEGACY and "tools" in res["capabilities"], res)
    check(res["serverInfo"]["name"] == "editgate", res)
    session = r.getheader("Mcp-Session-Id")
    check(session and all(0x21 <= ord(ch) <= 0x7E for ch in session), "session id: %r" % session)
    door.session = session
    status, _, _ = door.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    check(status == 202, "initialized: %d" % status)


def refusals(door, port):
    st, _, _ = door.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, auth=False)
    check(st == 401, "no cookie: %d" % st)
    st, _, _ = door.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"Origin": "http://evil.example.com"})
    check(st == 403, "foreign origin: %d" % st)
    st, _, _ = door.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"Host": "evil.example.com"})
    check(400 <= st < 500, "foreign host: %d" % st)
    st, _, _ = door.post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                         {"Origin": "http://127.0.0.1:%d" % port})
    check(st == 200, "own origin: %d" % st)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/mcp", headers={"Authorization": "Bearer " + door.cookie, "Accept": "text/event-stream"})
    r = c.getresponse()
    r.read()
    check(r.status == 405, "GET: %d" % r.status)
    st, _, msgs = door.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    check(st == 400 and msgs[0]["error"]["code"] == -32600, "batch: %d %r" % (st, msgs))
    st, _, msgs = door.post("{not json", raw=True)
    check(st == 400 and msgs[0]["error"]["code"] == -32700, "parse: %r" % msgs)
    # A 2025-11-25 request without a session, and with one that is not there.
    st, _, msgs = door.request("tools/list")
    check(st == 400, "tools/list without a session: %d" % st)
    door.session = "0" * 32
    st, _, msgs = door.request("tools/list")
    check(st == 404, "unknown session: %d" % st)
    door.session = None


def modern_rules(door):
    st, _, msgs = door.modern("server/discover")
    res = result_of(msgs)
    check(st == 200 and res["resultType"] == "complete", res)
    check(MODERN in res["supportedVersions"] and LEGACY in res["supportedVersions"], res)
    check(res["cacheScope"] in ("public", "private") and res["ttlMs"] >= 0, res)
    check(res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "editgate", res)
    st, _, msgs = door.modern("tools/list")
    tools = result_of(msgs)["tools"]
    names = [t["name"] for t in tools]
    check(names == ["edit_apply", "edit_check", "edit_undo", "history", "file_read", "file_list", "file_search",
                     "page_list", "page_open", "page_go", "page_screenshot", "page_close", "page_eval", "page_events",
                     "page_interrupt", "realm_open", "realm_close"],
          "the tools, in order: %r" % names)
    for t in tools:
        check(t["inputSchema"]["type"] == "object" and t["description"], t)
        check(isinstance(t["annotations"]["readOnlyHint"], bool), t)
    apply = next(t for t in tools if t["name"] == "edit_apply")
    check(apply["inputSchema"]["required"] == ["text"] and "dry_run" not in apply["inputSchema"]["properties"], apply)
    check(apply["annotations"]["destructiveHint"] is True, apply)
    check(next(t for t in tools if t["name"] == "edit_check")["annotations"]["readOnlyHint"] is True, tools)
    # Header and _meta faults, each with its code and status.
    st, _, msgs = door.modern("tools/list", headers={"Mcp-Method": "prompts/list"})
    check(st == 400 and msgs[0]["error"]["code"] == -32020, "method header: %r" % msgs)
    st, _, msgs = door.modern("tools/list", headers={"MCP-Protocol-Version": "2099-01-01"})
    check(st == 400 and msgs[0]["error"]["code"] == -32020, "version header: %r" % msgs)
    st, _, msgs = door.modern("tools/call", {"name": "page_list"}, name="history")
    check(st == 400 and msgs[0]["error"]["code"] == -32020, "name header: %r" % msgs)
    st, _, msgs = door.modern("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "v9"}},
                              headers={"MCP-Protocol-Version": "v9"})
    err = msgs[0]["error"]
    check(st == 400 and err["code"] == -32022 and err["data"]["requested"] == "v9", "version: %r" % msgs)
    st, _, msgs = door.request("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}},
                               {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"})
    check(st == 400 and msgs[0]["error"]["code"] == -32602, "no capabilities: %r" % msgs)
    st, _, msgs = door.modern("ping")
    check(st == 404 and msgs[0]["error"]["code"] == -32601, "ping is 2025-11-25's: %r" % msgs)
    st, _, msgs = door.modern("tools/call", {"name": "no_such_tool"}, name="no_such_tool")
    check(msgs[0]["error"]["code"] == -32602 and msgs[0]["id"] == door.ids, "unknown tool: %r" % msgs)
    # A name that is not plain ASCII travels base64-encoded in its header.
    st, _, msgs = door.modern("resources/read", {"uri": "editgate://result/é"},
                              name="=?base64?ZWRpdGdhdGU6Ly9yZXN1bHQvw6k=?=")
    check(st == 200 and msgs[0]["error"]["code"] == -32602, "base64 Mcp-Name: %r" % msgs)
    check(msgs[0]["error"]["data"]["uri"] == "editgate://result/é", msgs)


def call(door, tool, args, token=None, modern=False):
    params = {"name": tool, "arguments": args}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    if modern:
        return door.modern("tools/call", params, name=tool)
    return door.request("tools/call", params)


def wait_for_node_page(door):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        st, _, msgs = call(door, "page_list", {})
        pages = result_of(msgs)["structuredContent"]["pages"]
        if any(p.get("kind") == "node" and p.get("state") != "disconnected" for p in pages):
            return
        time.sleep(0.1)
    raise AssertionError("the Node page did not connect: %r" % pages)


def tools_end_to_end(door, root):
    st, _, msgs = call(door, "edit_check", {"text": BLOCKS})
    res = result_of(msgs)
    check(res["isError"] is True and res["structuredContent"]["counts"]["failed"] == 1, res)
    check(open(os.path.join(root, "a.txt")).read() == "hello\n", "check wrote nothing")
    st, _, msgs = call(door, "edit_apply", {"text": BLOCKS, "agent": "mcp-door"}, token="edit-1")
    progress = [m["params"] for m in msgs if m.get("method") == "notifications/progress"]
    check(len(progress) == 2 and all(p["progressToken"] == "edit-1" for p in progress), msgs)
    check([p["progress"] for p in progress] == [1, 2], progress)
    check(json.loads(progress[0]["message"])["block"]["status"] == "applied", progress)
    second = json.loads(progress[1]["message"])["block"]
    check(second["status"] == "failed" and second["reason"] == "anchor_not_found", second)
    res = result_of(msgs)
    check(res["isError"] is True, res)
    # The model reads the report, not JSON: each block's status, the
    # diagnostic as plain lines; the block results are the reply's `blocks`.
    text = res["content"][0]["text"]
    check(text.startswith("a.txt:1: applied  block 1") and re.search(r"^a\.txt(:\d+)?: failed \(anchor_not_found\)  block 2", text, re.M), text)
    check("\\n" not in text and '\\"' not in text and "null" not in text, text)
    check([b["status"] for b in res["structuredContent"]["blocks"]] == ["applied", "failed"], res)
    check("out" not in res["structuredContent"], res)
    commit = res["structuredContent"]["commit"]
    check(open(os.path.join(root, "a.txt")).read() == "world\n", "the good block applied")
    log = subprocess.run(["git", "log", "-1", "--format=%H %an"], cwd=root, capture_output=True, text=True).stdout
    check(log.startswith(commit) and "mcp-door" in log, log)
    # A diagnostic names the option as the tool's argument, not the command line's flag.
    st, _, msgs = call(door, "edit_check", {"text": "a.txt\n```\n««« EDIT\n  world\n═══════ REPL\nx\n»»» EDIT END\n```\n"})
    text = result_of(msgs)["content"][0]["text"]
    check('(or run with fuzz: "whitespace" to accept' in text and "--fuzz" not in text, text)
    wait_for_node_page(door)
    # Wrong arguments are a result the model acts on, not a protocol fault.
    st, _, msgs = call(door, "page_eval", {"code": 42})
    res = result_of(msgs)
    check(res["isError"] is True and res["structuredContent"]["error"] == "bad_request", res)
    check(res["content"][0]["text"].startswith("error bad_request: "), res)
    st, _, msgs = call(door, "page_eval", {"code": "console.log('printed'); 6 * 7"})
    res = result_of(msgs)
    check(res["structuredContent"].get("value") == 42, msgs)
    check(res["content"][0]["text"].startswith("printed\n42\n"), res)
    st, _, msgs = call(door, "page_eval", {"code": "1", "session": "nosuchsession"})
    check(result_of(msgs)["structuredContent"]["error"] == "not_found", msgs)


def realm_and_cancel(door, port):
    st, _, msgs = call(door, "realm_open", {}, modern=True)
    realm = result_of(msgs)["structuredContent"]
    session = realm["value"]
    st, _, msgs = call(door, "page_eval", {"code": "globalThis.mark = 5; mark * 2", "session": session}, modern=True)
    res = result_of(msgs)
    check(res["structuredContent"]["value"] == 10 and res["structuredContent"]["page"] == realm["page"], res)
    check(res["resultType"] == "complete", res)
    # 2026-07-28 cancels by closing the stream: the endless loop stops and
    # the realm answers the next eval.
    body = json.dumps({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
                       "params": {"name": "page_eval", "arguments": {"code": "while (true) {}", "session": session},
                                  "_meta": {**META, "progressToken": 1}}})
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
               "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
               "MCP-Protocol-Version: %s\r\nMcp-Method: tools/call\r\nMcp-Name: page_eval\r\n"
               "Content-Length: %d\r\n\r\n%s" % (port, door.cookie, MODERN, len(body.encode()), body)).encode())
    first = ""
    s.settimeout(20)
    while "executing (1s)" not in first:  # the first tick: the loop is running
        got = s.recv(4096).decode()
        check(got, "the stream ended before its first tick: %r" % first)
        first += got
    s.close()
    st, _, msgs = call(door, "page_eval", {"code": "mark + 1", "session": session}, modern=True)
    check(result_of(msgs)["structuredContent"]["value"] == 6, msgs)
    st, _, msgs = call(door, "realm_close", {"session": session}, modern=True)
    check(result_of(msgs)["structuredContent"]["value"] == "ok", msgs)


def legacy_cancel(door):
    # 2025-11-25 cancels by notification; no answer is sent for the call.
    out = {}

    def run():
        try:
            out["r"] = call(door, "page_eval", {"code": "while (true) {}"})
        except http.client.RemoteDisconnected:
            out["closed"] = True

    door.ids += 1
    cancelled_id = door.ids + 1
    t = threading.Thread(target=run)
    t.start()
    # Sent until the call ends: one that arrives before the call is known is ignored.
    deadline = time.monotonic() + 30
    while t.is_alive() and time.monotonic() < deadline:
        st, _, _ = door.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": cancelled_id, "reason": "test"}})
        check(st == 202, "cancelled: %d" % st)
        t.join(0.2)
    check(not t.is_alive(), "the cancelled call's response ended")
    check(out.get("closed") is True, "the cancelled call ends with no answer: %r" % out)
    st, _, msgs = call(door, "page_eval", {"code": "'free'"})
    check(result_of(msgs)["structuredContent"]["value"] == "free", msgs)


def cut_text_stays_utf8(door):
    # A progress message is cut at 8 KiB, never inside a character: the
    # response decodes as UTF-8 (Door.post decodes it) and parses.
    st, _, msgs = call(door, "page_eval", {"code": "console.log('x' + '€'.repeat(5000)); 1"}, token="cut")
    progress = [m["params"]["message"] for m in msgs if m.get("method") == "notifications/progress"]
    check(progress and progress[0].endswith("…") and "€€€" in progress[0], progress[:1])
    check(result_of(msgs)["structuredContent"]["value"] == 1, msgs[-1])


def large_result(door):
    # What the page prints comes with the result: 600 lines are too many to send.
    st, _, msgs = call(door, "page_eval", {"code": "for (let i = 0; i < 600; i++) console.log('line ' + i + ' ' + 'y'.repeat(80)); 'done'"})
    res = result_of(msgs)
    link = [c for c in res["content"] if c["type"] == "resource_link"]
    check(link and res["structuredContent"]["truncated"] is True, res)
    check(len(json.dumps(res)) < 8192, "the result stays small: %d bytes" % len(json.dumps(res)))
    st, _, msgs = door.request("resources/read", {"uri": link[0]["uri"]})
    text = result_of(msgs)["contents"][0]["text"]
    whole = json.loads(text)
    check(whole["value"] == "done" and len(whole["out"]) == 600, "the whole result")
    check(whole["out"][599]["out"].startswith("line 599 "), whole["out"][599])


def main():
    binary = sys.argv[1]
    with gateway(binary, {"a.txt": "hello\n"}) as (root, server, cookie):
        port = server["port"]
        check(server["mcp"] == "http://127.0.0.1:%d/mcp" % port, server)
        door = Door(port, cookie.strip())
        refusals(door, port)
        modern_rules(door)
        legacy_session(door)
        st, _, msgs = door.request("ping")
        check(result_of(msgs) == {}, msgs)
        tools_end_to_end(door, root)
        legacy_cancel(door)
        large_result(door)
        cut_text_stays_utf8(door)
        session = door.session
        door.session = None
        realm_and_cancel(door, port)
        # DELETE ends the 2025-11-25 session; it is not found afterwards.
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("DELETE", "/mcp", headers={"Authorization": "Bearer " + door.cookie, "Mcp-Session-Id": session})
        r = c.getresponse()
        r.read()
        check(r.status == 204, "DELETE: %d" % r.status)
        door.session = session
        st, _, _ = door.request("tools/list")
        check(st == 404, "deleted session: %d" % st)
    print("mcp_door: ok")


if __name__ == "__main__":
    main()
