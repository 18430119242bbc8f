"""Spark as a reader of our interop tests: one long-lived PySpark SparkSession in local mode with
Paimon's Spark connector (paimon-spark-3.5 0.9.0), driven by JSON lines like flink_peer.py.

Run with the venv of tests/setup/spark.sh:  spark_peer.py <jar-dir>
  <jar-dir>: paimon-spark-3.5-<v>.jar (tests/interop/java/lib-spark-<v>).

On start it prints one line {"ready": true, "pid", "jvmPid", "paimonVersion"}; then for every
request line on stdin exactly one answer line on stdout, in order:
  {"id", "op": "sql", "sql", "warehouse"?, "database"?}
      runs one Spark SQL statement; with `warehouse`, in a Paimon catalog on it (registered on first
      use, one per warehouse), with `database` as the current database. Further catalogs are
      registered by SQL: SET spark.sql.catalog.<name>=org.apache.paimon.spark.SparkCatalog and
      SET spark.sql.catalog.<name>.warehouse=file:<dir> (before the catalog's first use). Answer:
      {"id", "ok": true, "columns", "rows"} with the value forms of flink_peer.py, or
      {"id", "ok": false, "error"}: the Java exception chain, one message per cause.
  {"id", "op": "stats"}
      {"id", "ok": true, "jvmPid", "vmHwmKb", "vmRssKb"}: the JVM's peak and current resident set.
The process ends when stdin closes.
"""

import glob
import os
import sys
from types import SimpleNamespace

from engine_peer import catalog_for, java_error, jvm_status, not_ready, ready, safe, serve

CATALOG_CLASS = "org.apache.paimon.spark.SparkCatalog"


def spark_error(e):
    """java_error of a PySpark exception: Spark's captured ones keep their Java throwable in _origin."""
    origin = getattr(e, "_origin", None)
    if getattr(e, "java_exception", None) is None and origin is not None:
        return java_error(SimpleNamespace(java_exception=origin))
    return java_error(e)


def main():
    jar_dir = sys.argv[1]
    jars = sorted(glob.glob(os.path.join(jar_dir, "paimon-spark-*.jar")))
    if not jars:
        not_ready(f"no paimon-spark-*.jar in {jar_dir}: run tests/setup/spark.sh")
        return 1
    # Local mode advertises the machine's own address unless told otherwise.
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[1]")
        .appName("spark-peer")
        .config("spark.jars", ",".join(os.path.abspath(j) for j in jars))
        .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "768m"))
        .config("spark.driver.extraJavaOptions", os.environ.get("SPARK_JVM_ARGS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"))
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.extensions", "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions")
    )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark.sparkContext._jvm
    jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
    version = os.path.basename(jars[0])[len("paimon-spark-3.5-"):-len(".jar")]
    ready(jvm_pid, version, os.getpid())

    catalogs = {}

    def stats(_req):
        st = jvm_status(jvm_pid)
        return {"jvmPid": jvm_pid, "vmHwmKb": st.get("VmHWM"), "vmRssKb": st.get("VmRSS")}

    def create_catalog(name, uri):
        spark.conf.set(f"spark.sql.catalog.{name}", CATALOG_CLASS)
        spark.conf.set(f"spark.sql.catalog.{name}.warehouse", uri)

    def sql(req):
        if req.get("warehouse"):
            name = catalog_for(catalogs, req["warehouse"], "file:", create_catalog)
            spark.sql(f"USE `{name}`.`{req['database']}`" if req.get("database") else f"USE `{name}`")
        df = spark.sql(req["sql"])
        columns = list(df.columns)
        rows = [{c: safe(r[i]) for i, c in enumerate(columns)} for r in df.collect()]
        return {"columns": columns, "rows": rows}

    serve({"stats": stats, "sql": sql}, spark_error)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
