#!/usr/bin/env python3
"""The eval-side ops of the agents' WebSocket as an independent client plays
them: Python's `websockets` (Debian's python3-websockets), not the
project's own client, message by message as the nREPL-like protocol's
examples show them, with JavaScript as the language.

Starts `editgate serve` on a fresh workspace, connects through the
server.json `editgate where` names to /ws, waits for the built-in Node page
and plays: eval with console output (intermediate `out` messages without
status, each write with its line end, then the final message with `output`,
`value` and done), eval without output (one message, no `output`); stdin by
the eval's id with two prompts then eof, and stdin when no eval waits;
complete with and without cursor_pos; info and docs of a class and a
function defined by an eval, a symbol that names nothing and one that is
code (refused); and describe listing the ops' parameters.

Usage: ws_seed_eval.py EDITGATE_BINARY. Exit 0 on success.
"""
import asyncio
import sys

from seed_client import connected, gateway


async def play_eval(s):
    # Response (success, no stdout): one message.
    parts, d = await s.call({"op": "eval", "id": "msg-001", "code": "1 + 2"})
    assert parts == [] and d["id"] == "msg-001", (parts, d)
    assert d["value"] == 3 and d["status"] == ["done"] and "output" not in d, d

    # Streaming response: out messages as the writes happen, no status in
    # them, then the final message with the whole output.
    code = "process.stdout.write('Hello, '); console.log('world!'); null"
    parts, d = await s.call({"op": "eval", "id": "msg-002", "code": code})
    assert [p["out"] for p in parts] == ["Hello, ", "world!\n"], parts
    assert [p["source"] for p in parts] == ["process.stdout", "console.log"], parts
    assert all("status" not in p for p in parts), parts
    assert d["output"] == "Hello, world!\n" and d["value"] is None and d["status"] == ["done"], d

    # Response (error): one final message, done and error.
    parts, d = await s.call({"op": "eval", "id": "msg-003", "code": "foo"})
    assert parts == [] and d["status"] == ["done", "error"] and "foo" in d["error"], d


async def play_stdin(s):
    # Interactive input: need-input with its prompt, stdin by the eval's id
    # alone, twice, then eof (the prompt's null); the eval's own final
    # message answers, and no stdin gets a message of its own.
    code = "const n = await prompt('Name: '); const a = await prompt('Age: '); [n, a, await prompt('More: ')]"
    await s.send({"op": "eval", "id": "msg-001", "code": code})
    for prompt, value in (("Name: ", "Alice\n"), ("Age: ", "42\n"), ("More: ", "eof")):
        need = await s.recv()
        assert need == {"id": "msg-001", "status": ["need-input"], "prompt": prompt, "page": need.get("page")}, need
        await s.send({"op": "stdin", "id": "msg-001", "value": value})
    parts, d = await s.until_done("msg-001")
    assert parts == [] and d["value"] == ["Alice\n", "42\n", None] and d["status"] == ["done"], (parts, d)

    # If no eval is waiting for input: an error response.
    parts, d = await s.call({"op": "stdin", "id": "msg-001", "value": "nobody asked\n"})
    assert parts == [] and d["status"] == ["done", "error"] and d["reason"] == "not_found", d


async def play_complete(s):
    # Completion suggestions, with Jupyter's cursor_pos and the range they replace.
    parts, d = await s.call({"op": "complete", "id": "msg-002", "code": "setTim"})
    assert parts == [] and d["completions"] == ["setTimeout"] and d["status"] == ["done"], d
    assert (d["cursor_start"], d["cursor_end"]) == (0, 6), d
    parts, d = await s.call({"op": "complete", "id": "msg-003", "code": "Math.fl + 1", "cursor_pos": 7})
    assert d["completions"] == ["floor"] and (d["cursor_start"], d["cursor_end"]) == (5, 7), d


async def play_info_docs(s):
    await s.call({"op": "eval", "id": "msg-004", "code":
                  "class Counter { constructor(start) { this.n = start; } }\nfunction greet(name, punctuation = '!') {\n  return 'Hi ' + name + punctuation;\n}"})
    # Symbol information.
    parts, d = await s.call({"op": "info", "id": "msg-003", "symbol": "Counter"})
    assert parts == [] and d["status"] == ["done"], d
    info = d["info"]
    assert info["found"] is True and info["symbol"] == "Counter" and info["kind"] == "class", d
    assert info["constructor"] == "new Counter(start)" and info["description"], d
    _, d = await s.call({"op": "info", "id": "msg-005", "symbol": "greet"})
    assert d["info"]["kind"] == "function" and d["info"]["signature"] == "greet(name, punctuation = '!')", d
    _, d = await s.call({"op": "info", "id": "msg-006", "symbol": "Nope.nothing"})
    assert d["info"] == {"found": False, "symbol": "Nope.nothing"}, d
    _, d = await s.call({"op": "info", "id": "msg-007", "symbol": "greet('x')"})
    assert d["status"] == ["done", "error"] and d["reason"] == "bad_request", d
    # What the page can tell about a function: its source head and length.
    _, d = await s.call({"op": "docs", "id": "msg-008", "symbol": "greet"})
    docs = d["docs"]
    assert docs["found"] is True and docs["source_head"] == "function greet(name, punctuation = '!') {", d
    assert docs["source_length"] == len("function greet(name, punctuation = '!') {\n  return 'Hi ' + name + punctuation;\n}"), d
    _, d = await s.call({"op": "describe", "id": "msg-040"})
    for op, params in (("info", ["symbol"]), ("docs", ["class"]), ("stdin", ["value"]), ("complete", ["code"])):
        assert d["ops"][op]["params"] == params, (op, d["ops"][op])
    # docs as the WebSocket protocol names it: class, and an optional selector; symbol its older name.
    assert d["ops"]["docs"]["optional"] == ["selector", "symbol", "page"], d["ops"]["docs"]
    assert "cursor_pos" in d["ops"]["complete"]["optional"], d["ops"]["complete"]
    _, d = await s.call({"op": "docs", "id": "msg-041", "class": "Counter"})
    assert d["docs"]["found"] is True and d["docs"]["kind"] == "class" and d["docs"]["class"] == "Counter", d
    _, d = await s.call({"op": "docs", "id": "msg-042", "class": "Array", "selector": "push"})
    assert d["docs"]["symbol"] == "Array.prototype.push" and d["docs"]["native"] is True, d
    _, d = await s.call({"op": "docs", "id": "msg-043"})
    assert d["reason"] == "missing_param" and "class" in d["error"], d


async def play(server, cookie_text):
    async with connected(server, cookie_text) as s:
        await s.node_page()
        await play_eval(s)
        await play_stdin(s)
        await play_complete(s)
        await play_info_docs(s)
        await s.nothing_more()


def main():
    with gateway(sys.argv[1], {}) as (_, server, cookie_text):
        asyncio.run(play(server, cookie_text))
    print("ok")


if __name__ == "__main__":
    main()
