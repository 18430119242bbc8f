"""pypaimon reference peer of our interop tests (run with the venv of tests/setup/pypaimon.sh).

Commands (JSON on stdout; errors on stderr with exit code 1):
  read <warehouse> <db> <table> [snapshotId|tag:<name>|branch:<name>|<name>]
      every row of the table's merged view, one JSON object per line, sorted, values rendered in the
      canonical form that tests/interop/java/PaimonTool.java documents (same output for same rows).
  create <warehouse> [db]
      creates tables pypaimon can write (default db "pyinterop") with several commits each: py_append
      (bucket -1), py_append_part (bucket 2, partitioned), py_pk (deduplicate, partitioned),
      py_pk_partial (partial-update), py_pk_dv (deletion vectors: rows invisible until compacted); prints
      {"database": ..., "tables": {name: commits}}.
  dump-snapshots <warehouse> <db> <table> [branch]
      what pypaimon sees: latest snapshot id, every snapshot (id, schemaId, commitKind, ...), the
      latest schema, tags, branches and consumers.
  read-all <warehouse> <db> <outdir> <table,...>
      read of many tables in one process: <outdir>/<table>.rows.jsonl, or <table>.error.txt.
  read-many <outdir> <specs-json-file>
      many reads in one process, across warehouses and targets: the file holds a JSON array of
      {"key", "warehouse", "db", "table", "target"?} (key: [A-Za-z0-9_.-]+; target as for `read`);
      writes <outdir>/<key>.rows.jsonl or <key>.error.txt and prints {"results": {key: {ok, error?}}}.
  write <warehouse> <db> <table> <jsonl-file>
      appends the rows (canonical JSON, one object per line) in one commit.
"""

import datetime
import decimal
import json
import math
import re
import sys

import pyarrow as pa

decimal.getcontext().prec = 100  # DECIMAL(38, s) values need more than the default 28 digits

from pypaimon import CatalogFactory, Schema


def catalog(warehouse):
    """Filesystem catalog; extra options (s3.endpoint, s3.access-key, ...) from the environment
    variable PAIMON_CATALOG_OPTIONS, a JSON object of strings (same as PaimonTool)."""
    import os
    options = {"warehouse": warehouse}
    extra = os.environ.get("PAIMON_CATALOG_OPTIONS")
    if extra:
        options.update({k: str(v) for k, v in json.loads(extra).items()})
    return CatalogFactory.create(options)


def table_of(warehouse, db, name):
    return catalog(warehouse).get_table(f"{db}.{name}")


# ---------------------------------------------------------------- canonical values

def type_str(field):
    t = field.type
    return str(getattr(t, "type", None) or t)


def canon(value, ptype):
    """ptype: the Paimon type (pypaimon DataType object)."""
    if value is None:
        return None
    tname = type(ptype).__name__
    s = str(getattr(ptype, "type", "") or "").upper()
    if tname == "ArrayType":
        return [canon(v, ptype.element) for v in value]
    if tname == "MapType":
        items = value.items() if isinstance(value, dict) else value
        return [[canon(k, ptype.key), canon(v, ptype.value)] for k, v in items]
    if tname == "RowType":
        out = {}
        for f in ptype.fields:
            out[f.name] = canon(value.get(f.name) if isinstance(value, dict) else None, f.type)
        return out
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, decimal.Decimal):
        m = re.match(r"DECIMAL\((\d+),\s*(\d+)\)", s)
        scale = int(m.group(2)) if m else -value.as_tuple().exponent
        q = value.quantize(decimal.Decimal(1).scaleb(-scale)) if scale > 0 else value.quantize(decimal.Decimal(1))
        return format(q, "f")
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, datetime.datetime) or hasattr(value, "nanosecond"):
        ltz = "LOCAL TIME ZONE" in s
        if getattr(value, "tzinfo", None) is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        nanos = value.microsecond * 1000 + int(getattr(value, "nanosecond", 0) or 0)
        txt = "%04d-%02d-%02dT%02d:%02d:%02d.%09d" % (
            value.year, value.month, value.day, value.hour, value.minute, value.second, nanos)
        return txt + ("Z" if ltz else "")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.time):
        return "%02d:%02d:%02d.%03d" % (value.hour, value.minute, value.second, value.microsecond // 1000)
    if isinstance(value, datetime.timedelta):
        ms = int(value.total_seconds() * 1000)
        return "%02d:%02d:%02d.%03d" % (ms // 3600000, (ms // 60000) % 60, (ms // 1000) % 60, ms % 1000)
    return str(value)


def dumps(o):
    return json.dumps(o, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def load(warehouse, db, name, target):
    cat = catalog(warehouse)
    if target and not re.fullmatch(r"\d+", target) and not target.startswith("tag:"):
        branch = target[7:] if target.startswith("branch:") else target
        base = cat.get_table(f"{db}.{name}")
        if branch in base.branch_manager().branches():
            return cat.get_table(f"{db}.{name}$branch_{branch}")
        if target.startswith("branch:"):
            raise SystemExit(f"no branch named '{branch}'")
        return base.copy({"scan.tag-name": target})
    t = cat.get_table(f"{db}.{name}")
    if not target:
        return t
    if target.startswith("tag:"):
        return t.copy({"scan.tag-name": target[4:]})
    return t.copy({"scan.snapshot-id": target})


def cmd_read(warehouse, db, name, target=None, out=None):
    t = load(warehouse, db, name, target)
    fields = t.table_schema.fields
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    arrow = rb.new_read().to_arrow(splits)
    lines = []
    if arrow is not None:
        cols = {n: arrow.column(n).to_pylist() for n in arrow.column_names}
        for i in range(arrow.num_rows):
            row = {}
            for f in fields:
                row[f.name] = canon(cols[f.name][i], f.type) if f.name in cols else None
            lines.append(dumps(row))
    lines.sort()
    out = out or sys.stdout
    for line in lines:
        out.write(line + "\n")


def cmd_read_all(warehouse, db, outdir, tables):
    import os
    import traceback
    os.makedirs(outdir, exist_ok=True)
    result = {}
    for name in [t for t in tables.split(",") if t]:
        try:
            with open(os.path.join(outdir, name + ".rows.jsonl"), "w", encoding="utf-8") as f:
                cmd_read(warehouse, db, name, None, f)
            result[name] = {"ok": True}
        except Exception as e:  # noqa: BLE001 - reported per table
            os.remove(os.path.join(outdir, name + ".rows.jsonl"))
            with open(os.path.join(outdir, name + ".error.txt"), "w", encoding="utf-8") as f:
                f.write(traceback.format_exc())
            result[name] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    print(dumps({"outdir": outdir, "tables": result}))


def cmd_read_many(outdir, specs_file):
    import os
    import traceback
    os.makedirs(outdir, exist_ok=True)
    with open(specs_file, encoding="utf-8") as f:
        specs = json.load(f)
    result = {}
    for spec in specs:
        key = spec["key"]
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", key) or key in result:
            raise SystemExit(f"bad or duplicate key {key!r}")
        rows = os.path.join(outdir, key + ".rows.jsonl")
        try:
            with open(rows, "w", encoding="utf-8") as f:
                cmd_read(spec["warehouse"], spec["db"], spec["table"], spec.get("target"), f)
            result[key] = {"ok": True}
        except Exception as e:  # noqa: BLE001 - reported per read
            os.remove(rows)
            with open(os.path.join(outdir, key + ".error.txt"), "w", encoding="utf-8") as f:
                f.write(traceback.format_exc())
            result[key] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    print(dumps({"outdir": outdir, "results": result}))


# ---------------------------------------------------------------- create

def commit(table, arrow_table, overwrite=False):
    wb = table.new_batch_write_builder()
    if overwrite:
        wb.overwrite()
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(arrow_table)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def cmd_create(warehouse, db="pyinterop"):
    cat = catalog(warehouse)
    cat.create_database(db, True)
    result = {}

    s = pa.schema([("id", pa.int32()), ("name", pa.string()), ("amount", pa.float64()),
                   ("ts", pa.timestamp("us"))])
    cat.create_table(f"{db}.py_append", Schema.from_pyarrow_schema(s, options={"bucket": "-1", "file.format": "parquet"}), False)
    t = cat.get_table(f"{db}.py_append")
    commit(t, pa.Table.from_pylist([{"id": 1, "name": "a", "amount": 1.5, "ts": datetime.datetime(2024, 1, 1, 0, 0, 0, 1000)},
                                    {"id": 2, "name": None, "amount": None, "ts": None}], schema=s))
    commit(t, pa.Table.from_pylist([{"id": 3, "name": "c", "amount": -0.1, "ts": datetime.datetime(1999, 12, 31, 23, 59, 59)}], schema=s))
    commit(t, pa.Table.from_pylist([{"id": 1, "name": "dup", "amount": 2.0, "ts": None}], schema=s))
    result["py_append"] = 3

    s = pa.schema([("id", pa.int64()), ("dt", pa.string()), ("hr", pa.int32()), ("v", pa.string())])
    cat.create_table(f"{db}.py_append_part", Schema.from_pyarrow_schema(
        s, partition_keys=["dt", "hr"], options={"bucket": "2", "bucket-key": "id", "file.format": "parquet"}), False)
    t = cat.get_table(f"{db}.py_append_part")
    commit(t, pa.Table.from_pylist([{"id": i, "dt": "2024-01-0%d" % (1 + i % 2), "hr": i % 3, "v": "v%d" % i}
                                    for i in range(6)], schema=s))
    # (pypaimon 2.0.0 cannot write a NULL partition value into a fixed-bucket table: its partition
    # predicate compares None with str while planning the write; so no NULL partitions here.)
    commit(t, pa.Table.from_pylist([{"id": 100, "dt": "2024-01-03", "hr": 0, "v": "new-partition"},
                                    {"id": 101, "dt": "2024-01-01", "hr": 1, "v": "x"}], schema=s))
    result["py_append_part"] = 2

    s = pa.schema([pa.field("dt", pa.string(), nullable=False), pa.field("id", pa.int32(), nullable=False),
                   ("name", pa.string()), ("v", pa.int64())])
    cat.create_table(f"{db}.py_pk", Schema.from_pyarrow_schema(
        s, partition_keys=["dt"], primary_keys=["dt", "id"], options={"bucket": "2", "file.format": "parquet"}), False)
    t = cat.get_table(f"{db}.py_pk")
    commit(t, pa.Table.from_pylist([{"dt": "2024-01-01", "id": 1, "name": "a", "v": 1},
                                    {"dt": "2024-01-01", "id": 2, "name": "b", "v": 2},
                                    {"dt": "2024-01-02", "id": 1, "name": "c", "v": 3}], schema=s))
    commit(t, pa.Table.from_pylist([{"dt": "2024-01-01", "id": 1, "name": "a2", "v": 10},
                                    {"dt": "2024-01-02", "id": 3, "name": "d", "v": 9007199254740993}], schema=s))
    commit(t, pa.Table.from_pylist([{"dt": "2024-01-01", "id": 1, "name": "a3", "v": -9223372036854775808}], schema=s))
    result["py_pk"] = 3

    # Partial-update: pypaimon's writer buffers rows through the same merge function.
    s = pa.schema([pa.field("id", pa.int32(), nullable=False), ("a", pa.string()), ("b", pa.int64())])
    cat.create_table(f"{db}.py_pk_partial", Schema.from_pyarrow_schema(
        s, primary_keys=["id"], options={"bucket": "1", "merge-engine": "partial-update", "file.format": "parquet"}), False)
    t = cat.get_table(f"{db}.py_pk_partial")
    commit(t, pa.Table.from_pylist([{"id": 1, "a": "a1", "b": None}, {"id": 2, "a": None, "b": 20}], schema=s))
    commit(t, pa.Table.from_pylist([{"id": 1, "a": None, "b": 10}, {"id": 2, "a": "a2", "b": None}], schema=s))
    result["py_pk_partial"] = 2

    # Deletion vectors: pypaimon writes level-0 files and never compacts, so the rows stay invisible
    # (to every reader) until someone compacts the table: a fixture for compaction tests.
    s = pa.schema([pa.field("id", pa.int32(), nullable=False), ("v", pa.string())])
    cat.create_table(f"{db}.py_pk_dv", Schema.from_pyarrow_schema(
        s, primary_keys=["id"], options={"bucket": "1", "deletion-vectors.enabled": "true", "file.format": "parquet"}), False)
    t = cat.get_table(f"{db}.py_pk_dv")
    # Keys do not overlap across the commits: pypaimon 2.0.0 restarts the sequence numbers of each
    # commit in a DV table (its write scan does not see the invisible level-0 files), so an updated key
    # would have two rows with the same sequence number and an ambiguous merge.
    commit(t, pa.Table.from_pylist([{"id": 1, "v": "a"}, {"id": 2, "v": "b"}], schema=s))
    commit(t, pa.Table.from_pylist([{"id": 3, "v": "c"}, {"id": 4, "v": "d"}], schema=s))
    result["py_pk_dv"] = 2
    print(dumps({"database": db, "tables": result}))


# ---------------------------------------------------------------- write (canonical JSONL)

def from_canon(value, field):
    if value is None:
        return None
    s = str(getattr(field.type, "type", "") or "").upper()
    if s.startswith("DECIMAL"):
        return decimal.Decimal(value)
    if s.startswith("DATE"):
        return datetime.date.fromisoformat(value)
    if s.startswith("TIMESTAMP"):
        v = value[:-1] if value.endswith("Z") else value
        base, _, frac = v.partition(".")
        dt = datetime.datetime.fromisoformat(base)
        return dt.replace(microsecond=int((frac + "000000000")[:6]))
    if s.startswith("BINARY") or s.startswith("VARBINARY") or s.startswith("BYTES"):
        return bytes.fromhex(value)
    if s.startswith("FLOAT") or s.startswith("DOUBLE"):
        return float(value)
    return value


def cmd_write(warehouse, db, name, jsonl):
    t = table_of(warehouse, db, name)
    fields = t.table_schema.fields
    rows = []
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                rows.append({fl.name: from_canon(o.get(fl.name), fl) for fl in fields})
    from pypaimon.schema.data_types import PyarrowFieldParser
    schema = PyarrowFieldParser.from_paimon_schema(fields)
    commit(t, pa.Table.from_pylist(rows, schema=schema))
    latest = t.snapshot_manager().get_latest_snapshot()
    print(dumps({"rows": len(rows), "snapshotId": latest.id if latest else None}))


# ---------------------------------------------------------------- dump-snapshots

def snap_obj(s):
    return {"id": s.id, "schemaId": s.schema_id, "commitKind": str(getattr(s, "commit_kind", None)),
            "commitIdentifier": getattr(s, "commit_identifier", None),
            "timeMillis": getattr(s, "time_millis", None),
            "totalRecordCount": getattr(s, "total_record_count", None),
            "deltaRecordCount": getattr(s, "delta_record_count", None),
            "baseManifestList": getattr(s, "base_manifest_list", None),
            "deltaManifestList": getattr(s, "delta_manifest_list", None),
            "changelogManifestList": getattr(s, "changelog_manifest_list", None),
            "indexManifest": getattr(s, "index_manifest", None)}


def cmd_dump_snapshots(warehouse, db, name, branch=None):
    cat = catalog(warehouse)
    ident = f"{db}.{name}" + (f"$branch_{branch}" if branch and branch != "main" else "")
    t = cat.get_table(ident)
    sm = t.snapshot_manager()
    latest = sm.get_latest_snapshot()
    snaps = sorted(sm.list_snapshots(), key=lambda s: s.id)
    schema = t.table_schema
    tags = []
    for tag_name, tag in sorted(t.tag_manager().list_tags().items()) if isinstance(t.tag_manager().list_tags(), dict) else []:
        tags.append({"name": tag_name, "snapshotId": tag.id})
    if not tags:
        raw = t.tag_manager().list_tags()
        if isinstance(raw, list):
            for item in raw:
                nm = item if isinstance(item, str) else getattr(item, "name", str(item))
                tg = t.tag_manager().get(nm)
                tags.append({"name": nm, "snapshotId": tg.id if tg else None})
            tags.sort(key=lambda x: x["name"])
    consumers = {}
    try:
        cm = t.consumer_manager()
        for cid, nxt in sorted((cm.consumers() or {}).items()):
            consumers[cid] = {"nextSnapshot": nxt}
    except Exception as e:  # noqa: BLE001 - report what pypaimon could not read
        consumers = {"error": str(e)}
    print(dumps({
        "table": f"{db}.{name}",
        "branch": branch or "main",
        "latestSnapshotId": latest.id if latest else None,
        "snapshots": [snap_obj(s) for s in snaps],
        "schema": {"id": schema.id, "fields": [{"id": f.id, "name": f.name, "type": str(f.type)} for f in schema.fields],
                   "partitionKeys": schema.partition_keys, "primaryKeys": schema.primary_keys,
                   "options": schema.options},
        "tags": tags,
        "branches": sorted(t.branch_manager().branches()),
        "consumers": consumers,
    }))


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "read":
        cmd_read(*args)
    elif cmd == "read-all":
        cmd_read_all(*args)
    elif cmd == "read-many":
        cmd_read_many(*args)
    elif cmd == "create":
        cmd_create(*args)
    elif cmd == "dump-snapshots":
        cmd_dump_snapshots(*args)
    elif cmd == "write":
        cmd_write(*args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
