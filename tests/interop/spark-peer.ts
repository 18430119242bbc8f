/**
 * Spark as a reader for interop tests: PySpark 3.5.9 in local mode with paimon-spark-3.5 0.9.0
 * (tests/setup/spark.sh), run as ONE long-lived peer program per test process
 * (tests/interop/python/spark_peer.py: one SparkSession), driven by the JSON lines of EnginePeer
 * (flink-peer.ts). The JVM starts lazily on the first request and then serves every statement.
 *
 * API: spark() -> the shared EnginePeer (.sql, .trySql, .stats, .stop as in flink-peer.ts).
 *
 * Environment (exported by spark_start; derived from the repository layout when unset):
 * SPARK_PYTHON, SPARK_PEER_SCRIPT, SPARK_JARS_0_9; SPARK_DRIVER_MEMORY and SPARK_JVM_ARGS override
 * the driver's heap and JVM flags.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnginePeer, envOr, sharedEnginePeer } from './flink-peer.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The only paimon-spark build the registries here serve. */
export const SPARK_PAIMON_VERSION = '0.9.0';

export function spark(): EnginePeer {
  return sharedEnginePeer('spark', () =>
    new EnginePeer(`Spark 3.5 (paimon-spark-3.5 ${SPARK_PAIMON_VERSION})`, () => ({
      python: envOr('SPARK_PYTHON', join(HERE, '.venv-spark', 'bin', 'python')),
      script: envOr('SPARK_PEER_SCRIPT', join(HERE, 'python', 'spark_peer.py')),
      args: [envOr('SPARK_JARS_0_9', join(HERE, 'java', `lib-spark-${SPARK_PAIMON_VERSION}`))],
      env: {},
      installHint: 'run tests/setup/spark.sh (spark_install)',
    })),
  );
}
