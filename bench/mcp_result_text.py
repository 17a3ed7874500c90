#!/usr/bin/env python3
"""What a model reads of an edit through MCP: the text content of one
edit_apply of two blocks, one of which fails, with its size in bytes and
whether it holds JSON escapes (\\n, \\"). Prints the text, then a summary line.

Usage: bench/mcp_result_text.py [EDITGATE_BINARY]   (default build/gateway/editgate)
"""
import http.client
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "e2e"))
from seed_client import gateway  # noqa: E402

FILE = "".join("line %d of the file\n" % i for i in range(1, 21))
BLOCKS = """a.txt
```
««« EDIT
line 3 of the file
═══════ REPL
line three of the file
»»» EDIT END
```
a.txt
```
««« EDIT
line 7 of teh file
line 8 of the file
═══════ REPL
line seven of the file
line eight of the file
»»» EDIT END
```
"""


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "gateway", "editgate")
    with gateway(binary, {"a.txt": FILE}) as (_, server, cookie):
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "edit_apply", "arguments": {"text": BLOCKS, "agent": "bench"},
                           "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                     "io.modelcontextprotocol/clientCapabilities": {}}}}
        c = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=30)
        c.request("POST", "/mcp", json.dumps(body),
                  {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": "Bearer " + cookie.strip(), "MCP-Protocol-Version": "2026-07-28",
                   "Mcp-Method": "tools/call", "Mcp-Name": "edit_apply"})
        data = c.getresponse().read().decode()
        msgs = [json.loads(l[6:]) for l in data.split("\n") if l.startswith("data: ")] or [json.loads(data)]
        result = msgs[-1]["result"]
        text = "".join(c["text"] for c in result["content"] if c["type"] == "text")
        print(text)
        escapes = sum(text.count(e) for e in ("\\n", '\\"'))
        print("--- %d bytes of text, %d JSON escapes, isError %s" % (len(text.encode()), escapes,
                                                                   result.get("isError", False)))


if __name__ == "__main__":
    main()
