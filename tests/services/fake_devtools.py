#!/usr/bin/python3
# A stand-in for a browser on --remote-debugging-pipe, for the pipe's own
# bounds (tests/services/test_devtools.cpp): it reads NUL-ended JSON
# commands on fd 3 and answers on fd 4. Echo answers {}; Page.captureScreenshot
# answers 33 MiB (over the pipe's bound); Silent never answers; Exit ends it.
# It starts a child that sleeps, to show the whole group ends at stop.
import json, os, subprocess, sys

if len(sys.argv) > 1 and sys.argv[1] == "--exit-at-once":
    sys.exit(3)
subprocess.Popen(["sleep", "600"])
inp, out = os.fdopen(3, "rb", buffering=0), os.fdopen(4, "wb", buffering=0)
buf = b""
while True:
    chunk = inp.read(65536)
    if not chunk:
        break
    buf += chunk
    while b"\0" in buf:
        raw, buf = buf.split(b"\0", 1)
        msg = json.loads(raw)
        method = msg["method"]
        if method == "Echo":
            out.write(json.dumps({"id": msg["id"], "result": {"echo": msg["params"]}}).encode() + b"\0")
        elif method == "Page.captureScreenshot":
            out.write(b'{"id":%d,"result":{"data":"' % msg["id"] + b"A" * (33 << 20) + b'"}}\0')
        elif method == "Fail":
            out.write(json.dumps({"id": msg["id"], "error": {"code": -32000, "message": "No target with given id"}}).encode() + b"\0")
        elif method == "Exit":
            sys.exit(0)
