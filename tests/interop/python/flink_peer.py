"""Flink reference engine of our interop tests: one long-lived PyFlink batch TableEnvironment (a
local mini-cluster in one JVM) with Paimon's Flink connector, driven by JSON lines.

Run with the venv of tests/setup/flink.sh:  flink_peer.py <jar-dir>
  <jar-dir>: paimon-flink-2.0-<v>.jar and Hadoop's client jars (tests/interop/java/lib-flink-<v>).

On start it prints one line {"ready": true, "pid", "jvmPid", "paimonVersion"}; then for every
request line on stdin exactly one answer line on stdout, in order:
  {"id", "op": "sql", "sql", "warehouse"?, "database"?}
      runs one statement; with `warehouse`, in a filesystem Paimon catalog on it (created on first
      use, one per warehouse), with `database` as the current database. Answer:
      {"id", "ok": true, "columns": [...], "rows": [{column: value}]} with JSON-safe values
      (DATE "YYYY-MM-DD", TIMESTAMP "YYYY-MM-DDTHH:MM:SS.ffffff", DECIMAL as its text, BYTES hex,
      NaN/Infinity as strings, integers exact), or {"id", "ok": false, "error"}: the Java
      exception chain, one message per cause.
  {"id", "op": "stream-start", "sql", "catalogs": {name: warehouse}}
      submits a streaming query (a second, streaming TableEnvironment of the same JVM, with those
      Paimon catalogs) and answers {"id", "ok": true, "stream": n} once its job is RUNNING; a
      thread of this process collects its rows from then on.
  {"id", "op": "stream-poll", "stream"}
      {"id", "ok": true, "columns", "rows", "error"}: every row collected so far (not waiting).
  {"id", "op": "stream-stop", "stream"}
      cancels the job: {"id", "ok": true, "rows": count collected}.
  {"id", "op": "stats"}
      {"id", "ok": true, "jvmPid", "vmHwmKb", "vmRssKb", "pythonHwmKb"}: the JVM's peak and current
      resident set, and this python process's peak.
The process ends when stdin closes.
"""

import glob
import os
import re
import sys
import threading
import time

from engine_peer import catalog_for, java_error, jvm_status, not_ready, ready, safe, serve

STREAM_START_TIMEOUT_S = 120


def is_insert(sql):
    return re.match(r"\s*(INSERT|EXECUTE\s+STATEMENT\s+SET)\b", sql, re.IGNORECASE) is not None


class Stream:
    """One running streaming query: its job client and the rows a thread collected so far."""

    def __init__(self, result):
        self.result = result
        self.columns = list(result.get_table_schema().get_field_names())
        self.rows = []
        self.error = None
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.collect, daemon=True)
        self.thread.start()

    def collect(self):
        try:
            with self.result.collect() as it:
                for r in it:
                    values = list(r)
                    with self.lock:
                        self.rows.append({c: safe(values[i]) for i, c in enumerate(self.columns)})
        except Exception as e:  # noqa: BLE001 (a cancelled job ends the iterator with an error)
            with self.lock:
                self.error = java_error(e)

    def snapshot(self):
        with self.lock:
            return list(self.rows), self.error

    def wait_running(self):
        client = self.result.get_job_client()
        deadline = time.monotonic() + STREAM_START_TIMEOUT_S
        while time.monotonic() < deadline:
            # A JobStatus enum member (its str() is "JobStatus.RUNNING").
            status = getattr(client.get_job_status().result(), "name", "")
            if status == "RUNNING":
                return
            if status in ("FAILED", "CANCELED", "FINISHED"):
                raise RuntimeError(f"the streaming job is {status}: {self.snapshot()[1] or ''}")
            time.sleep(0.2)
        raise RuntimeError(f"the streaming job was not RUNNING within {STREAM_START_TIMEOUT_S} s")

    def stop(self):
        try:
            self.result.get_job_client().cancel().result()
        except Exception:  # noqa: BLE001 (already ended)
            pass
        self.thread.join(30)


def main():
    jar_dir = sys.argv[1]
    jars = sorted(glob.glob(os.path.join(jar_dir, "*.jar")))
    connector = [j for j in jars if os.path.basename(j).startswith("paimon-flink-")]
    if not connector:
        not_ready(f"no paimon-flink-*.jar in {jar_dir}: run tests/setup/flink.sh")
        return 1

    # The connector and Hadoop's jars go on the gateway JVM's own class path (PyFlink's launcher adds
    # HADOOP_CLASSPATH to it), not in pipeline.jars: then every job of the local mini-cluster runs on
    # the classes loaded once, where pipeline.jars loads and compiles them again per job (a Flink
    # job took 4-5 times as long that way here).
    os.environ["HADOOP_CLASSPATH"] = os.pathsep.join(os.path.abspath(j) for j in jars)
    from pyflink.common import Configuration
    from pyflink.java_gateway import get_gateway
    from pyflink.table import EnvironmentSettings, TableEnvironment

    jvm = get_gateway().jvm
    jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
    loopback = ("rest.bind-address", "rest.address", "taskmanager.host", "taskmanager.bind-host", "jobmanager.rpc.address", "jobmanager.bind-host")

    conf = Configuration()
    conf.set_string("parallelism.default", "1")
    # Synchronous DML: INSERT and CALL sys.compact return after their job ends, not with a JobID.
    conf.set_string("table.dml-sync", "true")
    # Each job's local mini-cluster binds only to loopback, on ports the kernel picks. (A session
    # mini-cluster with execution.target=remote was tried: no faster here, and CALL sys.compact
    # then fails to start its own job.)
    for key in loopback:
        conf.set_string(key, "127.0.0.1")
    conf.set_string("rest.port", "0")
    env = TableEnvironment.create(EnvironmentSettings.new_instance().in_batch_mode().with_configuration(conf).build())
    version = os.path.basename(connector[0])[len("paimon-flink-2.0-"):-len(".jar")]
    ready(jvm_pid, version, os.getpid())

    catalogs = {}
    # The streaming environment is made on the first stream-start (most files never stream).
    streaming = {"env": None, "catalogs": set()}
    streams = {}

    def stream_env(wanted):
        if streaming["env"] is None:
            streaming["env"] = TableEnvironment.create(EnvironmentSettings.new_instance().in_streaming_mode().with_configuration(conf).build())
        senv = streaming["env"]
        for name, wh in sorted(wanted.items()):
            if name not in streaming["catalogs"]:
                uri = wh if "://" in wh else "file://" + os.path.abspath(wh)
                senv.execute_sql(f"CREATE CATALOG IF NOT EXISTS `{name}` WITH ('type'='paimon', 'warehouse'='{uri}')")
                streaming["catalogs"].add(name)
        return senv

    def stats(_req):
        st = jvm_status(jvm_pid)
        py = jvm_status(os.getpid())
        return {"jvmPid": jvm_pid, "vmHwmKb": st.get("VmHWM"), "vmRssKb": st.get("VmRSS"), "pythonHwmKb": py.get("VmHWM")}

    def stream_start(req):
        stream = Stream(stream_env(req.get("catalogs") or {}).execute_sql(req["sql"]))
        try:
            stream.wait_running()
        except Exception:
            stream.stop()
            raise
        sid = len(streams) + 1
        streams[sid] = stream
        return {"stream": sid}

    def stream_poll(req):
        rows, error = streams[req["stream"]].snapshot()
        return {"columns": streams[req["stream"]].columns, "rows": rows, "error": error}

    def stream_stop(req):
        stream = streams.pop(req["stream"])
        stream.stop()
        return {"rows": len(stream.snapshot()[0])}

    def create_catalog(name, uri):
        env.execute_sql(f"CREATE CATALOG `{name}` WITH ('type'='paimon', 'warehouse'='{uri}')")

    def sql(req):
        if req.get("warehouse"):
            env.use_catalog(catalog_for(catalogs, req["warehouse"], "file://", create_catalog))
            if req.get("database"):
                env.use_database(req["database"])
        result = env.execute_sql(req["sql"])
        columns = list(result.get_table_schema().get_field_names())
        rows = []
        if is_insert(req["sql"]):
            # dml-sync already waited for the job; its only row would be the job's id.
            columns = []
        else:
            with result.collect() as it:
                for r in it:
                    values = list(r)
                    rows.append({c: safe(values[i]) for i, c in enumerate(columns)})
        return {"columns": columns, "rows": rows}

    serve({"stats": stats, "stream-start": stream_start, "stream-poll": stream_poll, "stream-stop": stream_stop, "sql": sql}, java_error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
