"""What the engine peers (flink_peer.py, spark_peer.py) share: the JSON-line loop that answers each
request on stdin with one line on stdout, the JSON-safe form of engine values, the Java exception
chain of a failure, and a JVM's memory from /proc.
"""

import datetime
import decimal
import json
import math
import os
import sys


def ready(jvm_pid, version, pid):
    """The first line a peer prints once its engine runs."""
    print(json.dumps({"ready": True, "pid": pid, "jvmPid": jvm_pid, "paimonVersion": version}), flush=True)


def not_ready(error):
    print(json.dumps({"ready": False, "error": error}), flush=True)


def serve(handlers, error_of):
    """Answers every request line of stdin, in order, until stdin closes: handlers[op](request) gives
    the answer's fields ({"id", "ok": true, ...}); a failure is an answer too ({"id", "ok": false,
    "error": error_of(exception)}), and the peer keeps running."""
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        rid = req.get("id")
        handler = handlers.get(req.get("op"))
        if handler is None:
            answer = {"id": rid, "ok": False, "error": f"unknown op {req.get('op')!r}"}
        else:
            try:
                answer = {"id": rid, "ok": True, **handler(req)}
            except Exception as e:  # noqa: BLE001 (every failure is an answer)
                answer = {"id": rid, "ok": False, "error": error_of(e)}
        print(json.dumps(answer), flush=True)


def catalog_for(catalogs, warehouse, scheme_prefix, create):
    """The name of the Paimon catalog on `warehouse` (p1, p2, ... in order of first use), created
    with create(name, uri) the first time; a local path becomes a URI with `scheme_prefix`."""
    name = catalogs.get(warehouse)
    if name is None:
        name = f"p{len(catalogs) + 1}"
        create(name, warehouse if "://" in warehouse else scheme_prefix + os.path.abspath(warehouse))
        catalogs[warehouse] = name
    return name


def jvm_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmHWM", "VmRSS"):
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return out


def safe(v):
    """A JSON-safe form of one value Flink's Python row converter produced."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        return v.isoformat(timespec="microseconds")
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, dict):
        return [[safe(k), safe(x)] for k, x in v.items()]
    if hasattr(v, "as_dict"):
        return {k: safe(x) for k, x in v.as_dict().items()}
    if isinstance(v, (list, tuple)):
        return [safe(x) for x in v]
    return str(v)


def first_line(msg):
    """A Java message without the stack trace some exceptions embed in it."""
    return msg.split("\n\tat ")[0].strip()


def java_error(e):
    """The causes of a Py4J Java exception (their messages), without the stack traces."""
    je = getattr(e, "java_exception", None)
    if je is None:
        return first_line(f"{type(e).__name__}: {e}")
    msgs = []
    seen = 0
    while je is not None and seen < 10:
        msgs.append(first_line(je.toString()))
        je = je.getCause()
        seen += 1
    return " | caused by: ".join(msgs)
