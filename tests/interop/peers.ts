/**
 * Real Paimon peers for interop tests: Paimon Java (1.4.2 and 2.0.0, through
 * tests/interop/java/PaimonTool.java) and pypaimon 2.0.0 and 2.1.0 (tests/interop/python/paimon_peer.py),
 * each run as a child process with a timeout; their JSON output is parsed BigInt-safely.
 *
 * Setup: tests/setup/paimon-java.sh and tests/setup/pypaimon.sh install the peers (Maven, PyPI) and
 * export PAIMON_JAVA_CP_1_4 / PAIMON_JAVA_CP_2_0 / JAVA_OPENS / PYPAIMON_PYTHON / PYPAIMON21_PYTHON. When a test file is
 * run on its own (node --import tsx --test tests/interop/x.test.ts) after one install, the same paths
 * are derived from the repository layout. A missing peer is an error (PeerError), never a skip.
 *
 * API (all async functions reject with PeerError on a non-zero exit or a timeout):
 *
 *   parseJson(text)          BigInt-aware JSON: integers outside the safe range -> bigint, every
 *                            other number -> number. parseJsonLines(text) for JSON lines.
 *   toComparable(v)          deep copy with every bigint in the safe range turned into a number, so
 *                            values from our library (bigint ids) and from the peers deepEqual.
 *   canonicalSort(rows)      rows sorted by their canonical JSON text (the order the tools print).
 *
 *   java(version)            a PaimonJava handle, version '1.4' | '2.0' (PAIMON_JAVA_VERSIONS); it
 *                            runs the JVM with quick-start flags (C1 only, serial GC) that suit
 *                            short tool calls; benchmarks use new PaimonJava(v, { quickStart: false }):
 *     .run(args, opts)           raw: { code, stdout, stderr } (throws unless opts.allowFailure)
 *     .spawn(args)               a ChildProcess (for write-loop during a procedure; caller kills it)
 *     .batch([[cmd, ...args], ...]) many commands in ONE JVM, stops at the first failure
 *                                -> [{ ok, stdout, error? }] (JVM starts cost seconds on a busy box)
 *     .withCatalogOptions({...}) a handle passing catalog options (S3: s3.endpoint, s3.access-key,
 *                                s3.secret-key, s3.path.style.access) via PAIMON_CATALOG_OPTIONS;
 *                                S3 needs paimon-s3, on the 1.4.2 class path only (2.0.0 has none on
 *                                Maven Central)
 *     .paimonVersion()           the Paimon version that resolved, e.g. "1.4.2"
 *     .createMatrix(wh)          creates db `interop` with MATRIX_TABLES (see below) -> MatrixResult
 *     .createTable(wh, db, t, schema: TableSpec)
 *     .dump(wh, db, t, branch?)  -> TableDump: snapshots (Paimon's own JSON of each), schemas,
 *                                manifestLists{name: {fileName, fileSize, kind, manifests[]}},
 *                                manifests{name: entries[]}, indexManifests{name: entries[]},
 *                                tags[], branches[], consumers{}, changelogs[], hints{EARLIEST, LATEST}
 *                                (BinaryRows as {arity, hex (BinaryRow bytes), serializedHex (with
 *                                the 4-byte arity prefix, as in Avro), values (canonical)})
 *     .read(wh, db, t, target?)  -> Row[] of the merged view, sorted; target: snapshot id (number or
 *                                bigint), 'tag:<name>', 'branch:<name>', or a bare branch/tag name
 *     .dumpAll(wh, db, tables?)  dump + read of many tables in ONE JVM (JVM starts are the slow part)
 *                                -> Map<table, { dump, rows } | { error }>
 *     .golden(outdir)            golden bytes: <outdir>/golden.json indexes BinaryRow .bin files, a
 *                                manifest.avro and a manifest-list.avro with their decoded content
 *     .write(wh, db, t, rows, {overwrite}) one commit of canonical rows (an optional `_rowKind`
 *                                field '+I' | '-U' | '+U' | '-D' per row) -> { rows, snapshotId }
 *     .writeLoop(wh, db, t, n, sleepMs, start?) n commits of one generated row each (row i: every
 *                                column derived from i; INT column = i) -> { commits: [{i, snapshotId}] }
 *     .expire(wh, db, t, {retainMin, retainMax, olderThanMillis, maxDeletes}) ExpireSnapshots
 *     .orphanClean(wh, db, t, olderThanMillis, dryRun)  LocalOrphanFilesClean
 *     .rollback(wh, db, t, target) / .rollbackAsLatest(wh, db, t, target) (2.0 only)
 *     .compact(wh, db, t, kind?) Paimon's own compaction: 'full' (default: compact(partition, bucket,
 *                                true) per bucket entry, or AppendCompactCoordinator for bucket -1)
 *                                or 'minor' (compact(..., false): Paimon's own picking)
 *     .createTag(wh, db, t, tag, snapshotId?, timeRetainedMillis?) / .createBranch(wh, db, t, b, tag?)
 *     .createConsumer(wh, db, t, id, nextSnapshot)
 *     Timings for bench/: expire, orphanClean and compact report `millis` of the operation itself
 *     (measured inside the JVM), compact also `peakHeapBytes`; .readMetadata(wh, db, t) reads
 *     every snapshot's manifests in-process and reports millis and counts. For fair timings use
 *     new PaimonJava(v, { quickStart: false }) (full JIT).
 *     .synthHistory(wh, db, t, snapshots, filesPerSnapshot, touch?) a metadata-only history through
 *                                Paimon's commit (synthetic data files; `touch` creates them empty)
 *     .listFiles(wh, db, t)      every file reachable from any snapshot/tag/changelog/branch,
 *                                relative to the table root -> { root, files, namedOnly }: files =
 *                                what reads need (live data files after merging ADD/DELETE, all
 *                                metadata, changelog/index/statistics files); namedOnly = data files
 *                                that only DELETE entries of reachable manifests still name
 *     .check(wh, db, t)          reads every snapshot and tag of every branch; rejects (message
 *                                "... references missing files [...]") if any referenced file is
 *                                missing or any read fails -> { ok, missing, rowCounts, readErrors, files }
 *
 *   pypaimon                   pypaimon 2.0.0 handle (.withCatalogOptions({...}) as for Java):
 *     .read(wh, db, t, target?)  same Row form as java(...).read
 *     .readAll(wh, db, tables)   many tables in one process -> Map<table, { rows } | { error }>
 *     .create(wh, db?)           db (default 'pyinterop') with py_append, py_append_part, py_pk,
 *                                py_pk_partial, py_pk_dv (rows invisible until compacted)
 *     .dumpSnapshots(wh, db, t, branch?) what pypaimon sees (latest id, snapshots, schema, tags,
 *                                branches, consumers)
 *     .write(wh, db, t, rows)    one commit of canonical rows
 *   pypaimon21                 the same for pypaimon 2.1.0
 *   pypaimons                  both versions at once: .read(...) runs 2.0.0 and 2.1.0 side by side
 *                              and rejects unless both read the same rows (returned once), so a
 *                              test comparing them with Java checks both readers
 *
 *   matrixWarehouse(version)   the create-matrix warehouse, built once per test run under
 *                              $TEST_TMP/paimon-matrix-<version> and shared READ-ONLY by all tests.
 *   copyWarehouse(src, label)  a private copy (under $TEST_TMP) for tests that change tables.
 *   tempWarehouse(label)       an empty directory under $TEST_TMP.
 *   s3CatalogOptions(s3)       the catalog options for withCatalogOptions that point a peer at an
 *                              S3-compatible store (endpoint, keys, region, path-style access).
 *
 * Canonical values (identical in both tools): BOOLEAN -> boolean; TINYINT..BIGINT -> number/bigint;
 * FLOAT/DOUBLE -> number of the widened double, "NaN"/"Infinity"/"-Infinity" as strings;
 * DECIMAL -> string with the column's scale; CHAR/VARCHAR -> string; BINARY/VARBINARY -> hex;
 * DATE -> "YYYY-MM-DD"; TIME -> "HH:MM:SS.mmm"; TIMESTAMP -> "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn";
 * TIMESTAMP_LTZ -> the same plus "Z"; ARRAY -> array; MAP -> [[k, v], ...]; ROW -> object.
 */
import { testTmp } from '../support/temp-dir.js';
import { eachLine } from '../support/each-line.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const JAVA_DIR = join(HERE, 'java');
const PY_DIR = join(HERE, 'python');

const DEFAULT_JAVA_OPENS = [
  '--add-opens=java.base/java.lang=ALL-UNNAMED',
  '--add-opens=java.base/java.lang.invoke=ALL-UNNAMED',
  '--add-opens=java.base/java.lang.reflect=ALL-UNNAMED',
  '--add-opens=java.base/java.io=ALL-UNNAMED',
  '--add-opens=java.base/java.net=ALL-UNNAMED',
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/java.util=ALL-UNNAMED',
  '--add-opens=java.base/java.util.concurrent=ALL-UNNAMED',
  '--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
  '-Djdk.reflect.useDirectMethodHandle=false',
].join(' ');

// ------------------------------------------------------------------------------------------------
// JSON
// ------------------------------------------------------------------------------------------------

export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };
export type JsonObj = { [key: string]: Json };

/** BigInt-aware JSON parser: integers beyond Number.MAX_SAFE_INTEGER become bigint. */
export function parseJson(text: string): Json {
  let i = 0;
  const s = text;
  const fail = (msg: string): never => {
    throw new SyntaxError(`${msg} at offset ${i} in JSON: ${s.slice(Math.max(0, i - 40), i + 40)}`);
  };
  const ws = (): void => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t')) i++;
  };
  const value = (): Json => {
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      const o: JsonObj = {};
      ws();
      if (s[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (s[i] !== '"') fail('expected a key');
        const k = str();
        ws();
        if (s[i] !== ':') fail('expected ":"');
        i++;
        o[k] = value();
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') {
          i++;
          return o;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const a: Json[] = [];
      ws();
      if (s[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          return a;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    if (s.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (s.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (s.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(s.slice(i, i + 400));
    if (!m) return fail('unexpected character');
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    return Number(m[0]);
  };
  const str = (): string => {
    // JSON.parse handles escapes; find the closing quote first.
    let j = i + 1;
    while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    if (j >= s.length) fail('unterminated string');
    const out = JSON.parse(s.slice(i, j + 1)) as string;
    i = j + 1;
    return out;
  };
  const v = value();
  ws();
  if (i !== s.length) fail('trailing characters');
  return v;
}

export function parseJsonLines(text: string): Json[] {
  return text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => parseJson(l));
}

/** Deep copy in which every bigint that fits a safe integer is a number (for deepEqual). */
export function toComparable(v: unknown): Json {
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(toComparable);
  if (typeof v === 'object') {
    const o: JsonObj = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) o[k] = toComparable(x);
    return o;
  }
  return v as Json;
}

/** Canonical compact JSON text (bigint printed exactly), keys in insertion order. */
export function canonicalJson(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
}

export type Row = JsonObj;

/** Rows sorted by their canonical JSON text: an order both peers and our reader can reproduce. */
export function canonicalSort<T>(rows: T[]): T[] {
  return rows
    .map((r) => [canonicalJson(toComparable(r)), r] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, r]) => r);
}

// ------------------------------------------------------------------------------------------------
// Child processes
// ------------------------------------------------------------------------------------------------

export class PeerError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'PeerError';
  }
}

export interface RunOptions {
  /** Kill the child (SIGKILL) after this long; default 180 s. */
  timeoutMs?: number;
  /** Resolve with the result instead of rejecting on a non-zero exit. */
  allowFailure?: boolean;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Text written to the child's stdin. */
  stdin?: string;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  millis: number;
}

function childEnv(extra?: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.HADOOP_HOME;
  delete env.HADOOP_CONF_DIR;
  return env;
}

function runProcess(cmd: string, args: string[], what: string, opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env: childEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new PeerError(`${what}: cannot start ${cmd}: ${e.message}`, null, '', ''));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const r: RunResult = {
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        millis: Date.now() - started,
      };
      if (timedOut) {
        reject(new PeerError(`${what}: timed out after ${timeoutMs} ms`, code, r.stdout, r.stderr));
      } else if (code !== 0 && !opts.allowFailure) {
        reject(new PeerError(`${what} exited with ${code ?? signal}: ${errorSummary(r.stderr)}`, code, r.stdout, r.stderr));
      } else {
        resolvePromise(r);
      }
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

/**
 * One long-lived Paimon Java peer (`PaimonTool serve`): commands are JSON lines on its stdin, one
 * answer line each on its stdout, so a test file pays the JVM and class-loading start once per
 * class path instead of once per call (seconds each on a busy machine). Requests run one at a
 * time in arrival order. The child is unref'd while idle, so it never keeps a test process
 * alive, and it exits when its stdin closes (when this process ends); a request that times out
 * kills it (SIGKILL, by its pid) and the next request starts a fresh one.
 */
class JavaServer {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private tail = Promise.resolve();
  private stderrTail = '';
  private waiting: { id: number; done: (line: string | Error) => void } | null = null;

  constructor(
    private readonly cmd: string,
    private readonly args: string[],
  ) {}

  request(main: string, args: string[], catalogOptions: string | null, what: string, opts: RunOptions): Promise<RunResult> {
    const result = this.tail.then(() => this.send(main, args, catalogOptions, what, opts));
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private start(): ChildProcess {
    const child = spawn(this.cmd, this.args, { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderrTail = '';
    eachLine(child.stdout!, (line) => {
      if (line.trim().length > 0) this.waiting?.done(line);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-8000);
    });
    const gone = (why: string): void => {
      if (this.child === child) this.child = null;
      this.waiting?.done(new Error(why));
    };
    child.on('error', (e) => gone(`cannot start ${this.cmd}: ${e.message}`));
    child.on('exit', (code, signal) => gone(`the Java peer server exited with ${code ?? signal}: ${errorSummary(this.stderrTail)}`));
    child.stdin!.on('error', () => undefined);
    this.child = child;
    return child;
  }

  private idle(child: ChildProcess, idle: boolean): void {
    for (const h of [child, child.stdin, child.stdout, child.stderr] as ({ ref(): unknown; unref(): unknown } | null)[]) {
      if (idle) h?.unref();
      else h?.ref();
    }
  }

  private send(main: string, args: string[], catalogOptions: string | null, what: string, opts: RunOptions): Promise<RunResult> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? 180_000;
    const started = Date.now();
    this.idle(child, false);
    return new Promise<RunResult>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.idle(child, true);
        if (this.child === child) this.child = null;
        child.kill('SIGKILL');
        reject(new PeerError(`${what}: timed out after ${timeoutMs} ms`, null, '', this.stderrTail));
      }, timeoutMs);
      this.waiting = {
        id,
        done: (line) => {
          clearTimeout(timer);
          this.waiting = null;
          this.idle(child, true);
          if (line instanceof Error) {
            reject(new PeerError(`${what}: ${line.message}`, null, '', this.stderrTail));
            return;
          }
          const answer = JSON.parse(line) as { id: number; code: number; stdout: string; stderr: string };
          if (answer.id !== id) {
            reject(new PeerError(`${what}: the Java peer server answered request ${answer.id}, expected ${id}`, null, line, ''));
            return;
          }
          const r: RunResult = { code: answer.code, signal: null, stdout: answer.stdout, stderr: answer.stderr, millis: Date.now() - started };
          if (r.code !== 0 && !opts.allowFailure) {
            reject(new PeerError(`${what} exited with ${r.code}: ${errorSummary(r.stderr)}`, r.code, r.stdout, r.stderr));
          } else {
            resolvePromise(r);
          }
        },
      };
      child.stdin!.write(JSON.stringify({ id, main, args, catalogOptions }) + '\n');
    });
  }

  stop(): void {
    this.child?.kill('SIGKILL');
    this.child = null;
  }
}

/**
 * One server per JVM command line (class path and flags) and time zone, for the life of this
 * process: a JVM reads its default zone once, and tests that set process.env.TZ expect the Java
 * peer in that zone, as a JVM started per call would be.
 */
const javaServers = new Map<string, JavaServer>();
process.on('exit', () => {
  for (const s of javaServers.values()) s.stop();
});

function javaServer(cmd: string, args: string[]): JavaServer {
  const key = [process.env.TZ ?? '', cmd, ...args].join('\0');
  let s = javaServers.get(key);
  if (s === undefined) {
    s = new JavaServer(cmd, args);
    javaServers.set(key, s);
  }
  return s;
}

/**
 * Peer programs whose main() may run inside the long-lived JVM: they neither exit the JVM nor
 * read stdin, and print through PaimonTool.out, which they say by calling
 * `PaimonTool.stdoutForMain()`. Others (SortKeyTool, CompactBench) get a JVM of their own per call.
 */
const SERVED_MAINS: ReadonlySet<string> = (() => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'java');
  const served = new Set(['PaimonTool']);
  for (const f of readdirSync(dir)) {
    if (f.endsWith('.java') && readFileSync(join(dir, f), 'utf8').includes('PaimonTool.stdoutForMain()')) served.add(f.slice(0, -'.java'.length));
  }
  return served;
})();

/** The interesting part of a Java/Python error output: the tool's own message and the causes. */
function errorSummary(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim().length > 0);
  const key = lines.filter((l) => /PaimonTool error|Error|Exception|Caused by/.test(l) && !/^\s+at /.test(l));
  return (key.length > 0 ? key.slice(0, 8) : lines.slice(-8)).join(' | ').slice(0, 4000);
}

// ------------------------------------------------------------------------------------------------
// Paimon Java
// ------------------------------------------------------------------------------------------------

export type PaimonJavaVersion = '1.4' | '2.0';
export const PAIMON_JAVA_VERSIONS: readonly PaimonJavaVersion[] = ['1.4', '2.0'];
const FULL_VERSION: Record<PaimonJavaVersion, string> = { '1.4': '1.4.2', '2.0': '2.0.0' };

/** The database create-matrix creates and the tables in it. */
export const MATRIX_DB = 'interop';

export interface MatrixTable {
  name: string;
  kind: 'append' | 'primary-key';
  /** What the table exercises. */
  about: string;
  /** pypaimon 2.0.0 reads it to the same rows as Java (checked by harness.test.ts). */
  pypaimonReads: boolean;
}

export const MATRIX_TABLES: readonly MatrixTable[] = [
  { name: 'append_unpart', kind: 'append', about: 'bucket -1, unpartitioned, NaN/1e300/quoted strings, 3 commits', pypaimonReads: true },
  {
    name: 'append_part',
    kind: 'append',
    about: 'bucket -1, partitioned on (STRING, INT, DATE) with NULL partition values (__DEFAULT_PARTITION__) and a value needing path escaping; 3 commits',
    // Java writes DATE partition directories with the legacy name (epoch days, p_date=19723); pypaimon
    // 2.0.0 looks for p_date=2024-01-01 and fails with FileNotFoundError.
    pypaimonReads: false,
  },
  { name: 'append_fixed', kind: 'append', about: 'bucket 2, bucket-key id, BIGINTs above 2^32, 3 commits', pypaimonReads: true },
  { name: 'pk_dedup', kind: 'primary-key', about: 'deduplicate, bucket 2, partitioned on dt, a -D row, Long.MIN/MAX, 4 commits, write-only', pypaimonReads: true },
  { name: 'pk_dv', kind: 'primary-key', about: 'deletion-vectors.enabled, bucket 2, 4 commits with compactions and DV index files', pypaimonReads: true },
  { name: 'pk_changelog_input', kind: 'primary-key', about: 'changelog-producer=input, write-only, changelog manifests', pypaimonReads: true },
  { name: 'pk_changelog_lookup', kind: 'primary-key', about: 'changelog-producer=lookup (compacts on every commit)', pypaimonReads: true },
  { name: 'pk_partial', kind: 'primary-key', about: 'merge-engine=partial-update', pypaimonReads: true },
  { name: 'pk_agg', kind: 'primary-key', about: 'merge-engine=aggregation: sum, max, min, last_value, last_non_null_value, decimal sum', pypaimonReads: true },
  { name: 'pk_first_row', kind: 'primary-key', about: 'merge-engine=first-row (compacts on every commit)', pypaimonReads: true },
  { name: 'schema_evo', kind: 'primary-key', about: 'schemas 0..3: add column, rename column, INT -> BIGINT; a commit under each', pypaimonReads: true },
  { name: 'types', kind: 'append', about: 'every primitive type incl. DECIMAL(5,2)/(18,4)/(38,10), TIME, TIMESTAMP(3/6/9), LTZ(3/6), extremes and an all-NULL row', pypaimonReads: true },
  {
    name: 'history',
    kind: 'primary-key',
    about: '5 commits; tags t1, t3 (retained 1 d), t5; branch b1 from t3 with its own commit and tag bt1; empty branch b_empty; consumers c1 (next 4), c2 (next 2); branch consumer bc1',
    pypaimonReads: true,
  },
  {
    name: 'pk_changelog_decoupled',
    kind: 'primary-key',
    about: 'changelog-producer=input, snapshots retained 2, changelogs retained longer: long-lived changelog/ files',
    pypaimonReads: true,
  },
  { name: 'nested', kind: 'append', about: 'ARRAY<INT>, MAP<STRING,BIGINT>, ROW<x INT, y STRING>', pypaimonReads: true },
];

export interface MatrixResult {
  warehouse: string;
  database: string;
  paimonVersion: string;
  tables: Record<string, number>;
  millis: number;
}

/** A BinaryRow as the tools print it. */
export interface BinaryRowJson {
  arity: number;
  /** BinaryRow.toBytes(): the row bytes without the arity prefix. */
  hex: string;
  /** SerializationUtils.serializeBinaryRow: 4-byte big-endian arity + bytes (what Avro stores). */
  serializedHex: string;
  /** Canonical values, when the field types were known. */
  values?: Json[];
}

export interface SimpleStatsJson {
  minValues: BinaryRowJson;
  maxValues: BinaryRowJson;
  nullCounts: (number | bigint | null)[];
}

export interface DataFileMetaJson {
  fileName: string;
  fileSize: number | bigint;
  rowCount: number | bigint;
  minKey: BinaryRowJson;
  maxKey: BinaryRowJson;
  keyStats: SimpleStatsJson;
  valueStats: SimpleStatsJson;
  minSequenceNumber: number | bigint;
  maxSequenceNumber: number | bigint;
  schemaId: number | bigint;
  level: number;
  extraFiles: string[];
  /** Paimon's creationTime (a local timestamp) in canonical form. */
  creationTime: string | null;
  creationTimeEpochMillis: number | bigint;
  deleteRowCount: number | bigint | null;
  embeddedIndex: string | null;
  fileSource: 'APPEND' | 'COMPACT' | null;
  fileSourceValue: number | null;
  valueStatsCols: string[] | null;
  externalPath: string | null;
  firstRowId: number | bigint | null;
  writeCols: string[] | null;
  fileFormat: string;
}

export interface ManifestEntryJson {
  kind: 'ADD' | 'DELETE';
  kindValue: number;
  partition: BinaryRowJson;
  bucket: number;
  totalBuckets: number;
  file: DataFileMetaJson;
}

export interface ManifestFileMetaJson {
  fileName: string;
  fileSize: number | bigint;
  numAddedFiles: number | bigint;
  numDeletedFiles: number | bigint;
  partitionStats: SimpleStatsJson;
  schemaId: number | bigint;
  minBucket: number | null;
  maxBucket: number | null;
  minLevel: number | null;
  maxLevel: number | null;
  minRowId: number | bigint | null;
  maxRowId: number | bigint | null;
}

export interface ManifestListJson {
  fileName: string;
  fileSize: number | bigint | null;
  kind: 'base' | 'delta' | 'changelog';
  /** For a base list: only the base list's own entries (not the delta ones). */
  manifests: ManifestFileMetaJson[];
}

export interface IndexManifestEntryJson {
  kind: 'ADD' | 'DELETE';
  partition: BinaryRowJson;
  bucket: number;
  indexFile: {
    indexType: string;
    fileName: string;
    fileSize: number | bigint;
    rowCount: number | bigint;
    dvRanges: { dataFileName: string; offset: number; length: number; cardinality: number | bigint | null }[] | null;
    externalPath: string | null;
    globalIndexMeta: string | null;
  };
}

export interface TagJson {
  name: string;
  snapshotId: number | bigint;
  /** LocalDateTime.toString() of the tag's create time, or null. */
  tagCreateTime: string | null;
  tagTimeRetainedMillis: number | bigint | null;
  /** Paimon's own JSON of the tag (Tag.toJson()). */
  json: JsonObj;
}

export interface TableDump {
  paimonVersion: string;
  table: string;
  branch: string;
  location: string;
  latestSnapshotId: number | bigint | null;
  earliestSnapshotId: number | bigint | null;
  /** Contents of snapshot/EARLIEST and snapshot/LATEST (null when absent). */
  hints: { EARLIEST: string | null; LATEST: string | null };
  partitionKeys: string[];
  primaryKeys: string[];
  /** Snapshot.toJson() of every snapshot, by id: exactly the fields Java holds. */
  snapshots: JsonObj[];
  /** JsonSerdeUtil.toJson(TableSchema) of every schema, by id. */
  schemas: JsonObj[];
  manifestLists: Record<string, ManifestListJson>;
  manifests: Record<string, ManifestEntryJson[]>;
  indexManifests: Record<string, IndexManifestEntryJson[]>;
  tags: TagJson[];
  branches: string[];
  consumers: Record<string, { nextSnapshot: number | bigint }>;
  /** Long-lived changelogs (changelog/changelog-N), Changelog.toJson(). */
  changelogs: JsonObj[];
}

/** Schema for createTable: Paimon's JSON type form ("INT NOT NULL", {"type": "ARRAY", ...}). */
export interface TableSpec {
  fields: { name: string; type: Json; description?: string }[];
  primaryKeys?: string[];
  partitionKeys?: string[];
  options?: Record<string, string>;
}

export interface ExpireArgs {
  retainMin: number;
  retainMax: number;
  /** Snapshots newer than this epoch-millis time are kept (snapshot.time-retained = now - this). */
  olderThanMillis: number;
  maxDeletes: number;
}

function envOr(name: string, fallback: string): string {
  const v = process.env[name];
  return v !== undefined && v.length > 0 ? v : fallback;
}

export class PaimonJava {
  readonly fullVersion: string;
  readonly classPath: string;
  private readonly javaBin: string;
  private readonly opens: string[];

  private readonly quickStart: boolean;
  private readonly catalogOptions: Record<string, string> | undefined;

  constructor(
    readonly version: PaimonJavaVersion,
    opts: { quickStart?: boolean; catalogOptions?: Record<string, string> } = {},
  ) {
    this.quickStart = opts.quickStart ?? true;
    this.catalogOptions = opts.catalogOptions;
    this.fullVersion = FULL_VERSION[version];
    const envName = version === '1.4' ? 'PAIMON_JAVA_CP_1_4' : 'PAIMON_JAVA_CP_2_0';
    this.classPath = envOr(
      envName,
      `${join(JAVA_DIR, `lib-classes-${this.fullVersion}`)}:${join(JAVA_DIR, `lib-${this.fullVersion}`, '*')}`,
    );
    this.javaBin = envOr('PAIMON_JAVA_BIN', 'java');
    this.opens = envOr('JAVA_OPENS', DEFAULT_JAVA_OPENS).split(/\s+/).filter((x) => x.length > 0);
  }

  private argv(args: string[], mainClass = 'PaimonTool'): string[] {
    const quick = this.quickStart ? ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xshare:auto'] : [];
    return [...this.opens, ...quick, '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', this.classPath, mainClass, ...args];
  }

  private ensureBuilt(): void {
    const classes = this.classPath.split(':')[0] ?? '';
    if (!existsSync(join(classes, 'PaimonTool.class'))) {
      throw new PeerError(
        `Paimon Java ${this.fullVersion} peer is not installed (${classes}/PaimonTool.class missing): run paimon_java_install from tests/setup/paimon-java.sh`,
        null,
        '',
        '',
      );
    }
  }

  /** The same peer with extra catalog options (s3.endpoint, s3.access-key, ...) on every call. */
  withCatalogOptions(catalogOptions: Record<string, string>): PaimonJava {
    return new PaimonJava(this.version, { quickStart: this.quickStart, catalogOptions });
  }

  private catalogEnv(extra?: Record<string, string>): Record<string, string> {
    return { ...(this.catalogOptions ? { PAIMON_CATALOG_OPTIONS: JSON.stringify(this.catalogOptions) } : {}), ...extra };
  }

  /** Runs one PaimonTool command. */
  run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
    return this.runMain('PaimonTool', args, opts);
  }

  /** Runs another peer program of tests/interop/java (a class with its own main, compiled with PaimonTool). */
  async runMain(mainClass: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
    this.ensureBuilt();
    const what = `${mainClass} ${this.fullVersion} ${args.join(' ')}`;
    if (this.served(mainClass, opts)) {
      const options = this.catalogOptions ? JSON.stringify(this.catalogOptions) : null;
      return javaServer(this.javaBin, this.argv(['serve'])).request(mainClass, args, options, what, opts);
    }
    return runProcess(this.javaBin, this.argv(args, mainClass), what, { ...opts, env: this.catalogEnv(opts.env) });
  }

  /**
   * Whether a call runs in the long-lived JVM: quick-start handles only (benchmarks time fresh,
   * fully compiled JVMs), calls without stdin or extra environment, and PAIMON_JAVA_SERVE=0 turns
   * it off (to debug one call in a JVM of its own).
   */
  private served(mainClass: string, opts: RunOptions): boolean {
    return this.quickStart && SERVED_MAINS.has(mainClass) && opts.stdin === undefined && opts.env === undefined && process.env.PAIMON_JAVA_SERVE !== '0';
  }

  /** Starts a PaimonTool command without waiting (e.g. write-loop while a procedure runs). */
  spawn(args: string[]): ChildProcess {
    this.ensureBuilt();
    return spawn(this.javaBin, this.argv(args), { env: childEnv(this.catalogEnv()), stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /**
   * Many commands in one JVM (one start instead of one per command): each step is a PaimonTool
   * argument list; stops at the first failure. Returns each step's stdout (parse it with parseJson
   * or parseJsonLines) or its error.
   */
  async batch(steps: string[][], opts: RunOptions = {}): Promise<{ ok: boolean; stdout: string; error?: string }[]> {
    const f = join(tempWarehouse('batch'), 'steps.json');
    writeFileSync(f, JSON.stringify(steps));
    const r = await this.json<{ results: { ok: boolean; stdout: string; error?: string }[] }>(['batch', f], { timeoutMs: 600_000, ...opts });
    return r.results;
  }

  /** Runs a command that prints one JSON document. */
  async json<T = Json>(args: string[], opts: RunOptions = {}): Promise<T> {
    const r = await this.run(args, opts);
    if (r.stdout.trim().length === 0) throw new PeerError(`PaimonTool ${args[0]} printed nothing`, r.code, r.stdout, r.stderr);
    return parseJson(r.stdout.trim()) as T;
  }

  async paimonVersion(): Promise<string> {
    return (await this.json<{ paimonVersion: string }>(['version'])).paimonVersion;
  }

  createMatrix(wh: string): Promise<MatrixResult> {
    return this.json<MatrixResult>(['create-matrix', wh], { timeoutMs: 300_000 });
  }

  async createTable(wh: string, db: string, table: string, spec: TableSpec): Promise<void> {
    const f = join(tempWarehouse('schema'), 'schema.json');
    writeFileSync(f, JSON.stringify(spec));
    await this.json(['create-table', wh, db, table, f]);
  }

  dump(wh: string, db: string, table: string, branch?: string): Promise<TableDump> {
    return this.json<TableDump>(['dump', wh, db, table, ...(branch ? [branch] : [])]);
  }

  async read(wh: string, db: string, table: string, target?: string | number | bigint): Promise<Row[]> {
    const r = await this.run(['read', wh, db, table, ...(target !== undefined ? [String(target)] : [])]);
    return canonicalSort(parseJsonLines(r.stdout) as Row[]);
  }

  async dumpAll(wh: string, db: string, tables?: string[]): Promise<Map<string, { dump: TableDump; rows: Row[] } | { error: string }>> {
    const dir = tempWarehouse('dump-all');
    const r = await this.json<{ tables: Record<string, { ok: boolean; error?: string }> }>(
      ['dump-all', wh, db, dir, ...(tables ? [tables.join(',')] : [])],
      { timeoutMs: 600_000 },
    );
    const out = new Map<string, { dump: TableDump; rows: Row[] } | { error: string }>();
    for (const [t, st] of Object.entries(r.tables)) {
      if (!st.ok) {
        out.set(t, { error: `${st.error ?? 'failed'}\n${readFileSync(join(dir, `${t}.error.txt`), 'utf8')}` });
        continue;
      }
      out.set(t, {
        dump: parseJson(readFileSync(join(dir, `${t}.dump.json`), 'utf8')) as unknown as TableDump,
        rows: canonicalSort(parseJsonLines(readFileSync(join(dir, `${t}.rows.jsonl`), 'utf8')) as Row[]),
      });
    }
    return out;
  }

  golden(outdir: string): Promise<{ outdir: string; index: string; binaryRows: number }> {
    return this.json(['golden', outdir]);
  }

  async write(
    wh: string,
    db: string,
    table: string,
    rows: Row[],
    opts: { overwrite?: boolean } = {},
  ): Promise<{ rows: number; snapshotId: number | bigint }> {
    const f = join(tempWarehouse('rows'), 'rows.jsonl');
    writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
    return this.json(['write', wh, db, table, f, ...(opts.overwrite ? ['overwrite'] : [])]);
  }

  writeLoop(
    wh: string,
    db: string,
    table: string,
    n: number,
    sleepMs: number,
    start = 0,
    opts: RunOptions = {},
  ): Promise<{ commits: { i: number; snapshotId: number | bigint }[] }> {
    return this.json(['write-loop', wh, db, table, String(n), String(sleepMs), String(start)], { timeoutMs: 600_000, ...opts });
  }

  expire(
    wh: string,
    db: string,
    table: string,
    a: ExpireArgs,
  ): Promise<{ expired: number; earliestSnapshotId: number | bigint | null; latestSnapshotId: number | bigint | null; millis: number }> {
    return this.json([
      'expire',
      wh,
      db,
      table,
      String(a.retainMin),
      String(a.retainMax),
      String(a.olderThanMillis),
      String(a.maxDeletes),
    ]);
  }

  orphanClean(
    wh: string,
    db: string,
    table: string,
    olderThanMillis: number,
    dryRun: boolean,
  ): Promise<{
    deletedFileCount: number | bigint;
    deletedFileTotalLenInBytes: number | bigint;
    deletedFiles: string[];
    dryRun: boolean;
    millis: number;
  }> {
    return this.json(['orphan-clean', wh, db, table, String(olderThanMillis), String(dryRun)]);
  }

  rollback(wh: string, db: string, table: string, target: string | number | bigint): Promise<{ latestSnapshotId: number | bigint | null; tags: string[] }> {
    return this.json(['rollback', wh, db, table, String(target)]);
  }

  rollbackAsLatest(
    wh: string,
    db: string,
    table: string,
    target: string | number | bigint,
  ): Promise<{ success: boolean; targetSnapshotId: number | bigint; createdTag: string | null; latestSnapshotId: number | bigint | null }> {
    return this.json(['rollback-as-latest', wh, db, table, String(target)]);
  }

  /** Full compaction by default; `minor` lets Paimon's compaction manager pick (bucketed tables). */
  compact(
    wh: string,
    db: string,
    table: string,
    kind: 'full' | 'minor' = 'full',
  ): Promise<{
    mode: string;
    full: boolean;
    millis: number;
    peakHeapBytes: number | bigint;
    before: number | bigint | null;
    latestSnapshotId: number | bigint | null;
  }> {
    return this.json(['compact', wh, db, table, kind], { timeoutMs: 600_000 });
  }

  createTag(wh: string, db: string, table: string, tag: string, snapshotId?: number | bigint, timeRetainedMillis?: number): Promise<{ tag: string; snapshotId: number | bigint }> {
    const extra: string[] = [];
    if (snapshotId !== undefined || timeRetainedMillis !== undefined) {
      if (snapshotId === undefined) throw new Error('createTag: a time retained needs an explicit snapshot id');
      extra.push(String(snapshotId));
      if (timeRetainedMillis !== undefined) extra.push(String(timeRetainedMillis));
    }
    return this.json(['create-tag', wh, db, table, tag, ...extra]);
  }

  createBranch(wh: string, db: string, table: string, branch: string, tag?: string): Promise<{ branch: string; fromTag: string | null }> {
    return this.json(['create-branch', wh, db, table, branch, ...(tag ? [tag] : [])]);
  }

  createConsumer(wh: string, db: string, table: string, id: string, nextSnapshot: number | bigint): Promise<{ consumer: string; nextSnapshot: number | bigint }> {
    return this.json(['create-consumer', wh, db, table, id, String(nextSnapshot)]);
  }

  /** Every snapshot's manifest lists and manifests read in-process, timed (for bench/). */
  readMetadata(wh: string, db: string, table: string): Promise<{ snapshots: number; manifestFiles: number; manifestEntries: number | bigint; millis: number }> {
    return this.json(['read-metadata', wh, db, table], { timeoutMs: 600_000 });
  }

  /**
   * A metadata-only history for benchmarks: `snapshots` commits of `filesPerSnapshot` synthetic data
   * files (append table dt/id/v, 10 partitions) through Paimon's own commit; `touch` creates each
   * data file empty on disk. Rows cannot be read from it.
   */
  synthHistory(
    wh: string,
    db: string,
    table: string,
    snapshots: number,
    filesPerSnapshot: number,
    touch = false,
  ): Promise<{ snapshots: number; dataFiles: number; touched: boolean; millis: number }> {
    return this.json(['synth-history', wh, db, table, String(snapshots), String(filesPerSnapshot), ...(touch ? ['touch'] : [])], {
      timeoutMs: 3_600_000,
    });
  }

  listFiles(wh: string, db: string, table: string): Promise<{ root: string; files: string[]; namedOnly: string[] }> {
    return this.json(['list-files', wh, db, table]);
  }

  /** Rejects (PeerError) when any file referenced by a snapshot, tag or branch is missing. */
  check(
    wh: string,
    db: string,
    table: string,
  ): Promise<{ ok: boolean; missing: string[]; rowCounts: Record<string, number>; readErrors: Record<string, string>; files: number }> {
    return this.json(['check', wh, db, table], { timeoutMs: 600_000 });
  }
}

const javaHandles = new Map<PaimonJavaVersion, PaimonJava>();

export function java(version: PaimonJavaVersion): PaimonJava {
  let h = javaHandles.get(version);
  if (!h) {
    h = new PaimonJava(version);
    javaHandles.set(version, h);
  }
  return h;
}

// ------------------------------------------------------------------------------------------------
// pypaimon
// ------------------------------------------------------------------------------------------------

export interface PyDumpSnapshots {
  table: string;
  branch: string;
  latestSnapshotId: number | bigint | null;
  snapshots: {
    id: number | bigint;
    schemaId: number | bigint;
    commitKind: string;
    commitIdentifier: number | bigint | null;
    timeMillis: number | bigint | null;
    totalRecordCount: number | bigint | null;
    deltaRecordCount: number | bigint | null;
    baseManifestList: string | null;
    deltaManifestList: string | null;
    changelogManifestList: string | null;
    indexManifest: string | null;
  }[];
  schema: {
    id: number;
    fields: { id: number; name: string; type: string }[];
    partitionKeys: string[];
    primaryKeys: string[];
    options: Record<string, string>;
  };
  tags: { name: string; snapshotId: number | bigint | null }[];
  branches: string[];
  consumers: Record<string, { nextSnapshot: number | bigint }>;
}

/** The pinned pypaimon versions, each in its own venv (tests/setup/pypaimon.sh). */
export type PyPaimonVersion = '2.0.0' | '2.1.0';

export class PyPaimon {
  readonly python: string;
  readonly script: string;

  constructor(
    readonly version: PyPaimonVersion = '2.0.0',
    private readonly catalogOptions?: Record<string, string>,
  ) {
    this.python = version === '2.0.0' ? envOr('PYPAIMON_PYTHON', join(HERE, '.venv', 'bin', 'python')) : envOr('PYPAIMON21_PYTHON', join(HERE, '.venv-2.1', 'bin', 'python'));
    this.script = envOr('PYPAIMON_SCRIPT', join(PY_DIR, 'paimon_peer.py'));
  }

  /** The same peer with extra catalog options (s3.endpoint, s3.access-key, ...) on every call. */
  withCatalogOptions(catalogOptions: Record<string, string>): PyPaimon {
    return new PyPaimon(this.version, catalogOptions);
  }

  async run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
    if (!existsSync(this.python)) {
      throw new PeerError(`pypaimon ${this.version} peer is not installed (${this.python} missing): run pypaimon_install from tests/setup/pypaimon.sh`, null, '', '');
    }
    const env = { ...(this.catalogOptions ? { PAIMON_CATALOG_OPTIONS: JSON.stringify(this.catalogOptions) } : {}), ...opts.env };
    return runProcess(this.python, [this.script, ...args], `pypaimon ${args.join(' ')}`, { ...opts, env });
  }

  private async json<T>(args: string[], opts: RunOptions = {}): Promise<T> {
    const r = await this.run(args, opts);
    if (r.stdout.trim().length === 0) throw new PeerError(`pypaimon ${args[0]} printed nothing`, r.code, r.stdout, r.stderr);
    return parseJson(r.stdout.trim()) as T;
  }

  async read(wh: string, db: string, table: string, target?: string | number | bigint): Promise<Row[]> {
    const r = await this.run(['read', wh, db, table, ...(target !== undefined ? [String(target)] : [])]);
    return canonicalSort(parseJsonLines(r.stdout) as Row[]);
  }

  async readAll(wh: string, db: string, tables: string[]): Promise<Map<string, { rows: Row[] } | { error: string }>> {
    const dir = tempWarehouse('py-read-all');
    const r = await this.json<{ tables: Record<string, { ok: boolean; error?: string }> }>(
      ['read-all', wh, db, dir, tables.join(',')],
      { timeoutMs: 600_000 },
    );
    const out = new Map<string, { rows: Row[] } | { error: string }>();
    for (const [t, st] of Object.entries(r.tables)) {
      if (!st.ok) out.set(t, { error: st.error ?? 'failed' });
      else out.set(t, { rows: canonicalSort(parseJsonLines(readFileSync(join(dir, `${t}.rows.jsonl`), 'utf8')) as Row[]) });
    }
    return out;
  }

  create(wh: string, db = 'pyinterop'): Promise<{ database: string; tables: Record<string, number> }> {
    return this.json(['create', wh, db]);
  }

  dumpSnapshots(wh: string, db: string, table: string, branch?: string): Promise<PyDumpSnapshots> {
    return this.json(['dump-snapshots', wh, db, table, ...(branch ? [branch] : [])]);
  }

  async write(wh: string, db: string, table: string, rows: Row[]): Promise<{ rows: number; snapshotId: number | bigint | null }> {
    const f = join(tempWarehouse('pyrows'), 'rows.jsonl');
    writeFileSync(f, rows.map((r) => canonicalJson(r)).join('\n') + '\n');
    return this.json(['write', wh, db, table, f]);
  }
}

export const pypaimon = new PyPaimon('2.0.0');
export const pypaimon21 = new PyPaimon('2.1.0');

/** Both pinned pypaimon versions as one reader (see the module comment). */
export const pypaimons = {
  async read(wh: string, db: string, table: string, target?: string | number | bigint): Promise<Row[]> {
    const [a, b] = await Promise.all([pypaimon.read(wh, db, table, target), pypaimon21.read(wh, db, table, target)]);
    const ca = canonicalJson(toComparable(a));
    const cb = canonicalJson(toComparable(b));
    if (ca !== cb) {
      throw new PeerError(`pypaimon 2.1.0 reads other rows than pypaimon 2.0.0 from ${db}.${table}${target === undefined ? '' : ` at ${String(target)}`} (${b.length} against ${a.length} rows)`, null, cb.slice(0, 2000), ca.slice(0, 2000));
    }
    return a;
  },
};

// ------------------------------------------------------------------------------------------------
// S3-compatible store
// ------------------------------------------------------------------------------------------------

/** Where an S3-compatible store (the moto peer, tests/unit/paimon/fs/s3-peer.ts) answers. */
export interface S3Endpoint {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

/** The catalog options (withCatalogOptions) that point Paimon Java and pypaimon at `s3`, with path-style access. */
export function s3CatalogOptions(s3: S3Endpoint): Record<string, string> {
  return {
    's3.endpoint': s3.endpoint,
    's3.access-key': s3.accessKey,
    's3.secret-key': s3.secretKey,
    's3.region': s3.region,
    's3.path.style.access': 'true',
  };
}

// ------------------------------------------------------------------------------------------------
// Warehouses
// ------------------------------------------------------------------------------------------------


/** A new empty directory under $TEST_TMP. */
export function tempWarehouse(label: string): string {
  return mkdtempSync(join(testTmp(), `${label.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
}

/** A private copy of a warehouse (for tests that change it). */
export function copyWarehouse(src: string, label: string): string {
  const dst = tempWarehouse(label);
  // Keep modification times: orphan cleaning decides by them.
  cpSync(src, dst, { recursive: true, preserveTimestamps: true });
  return dst;
}

/**
 * The create-matrix warehouse of one Paimon Java version, built once per test run (per $TEST_TMP)
 * and shared: treat it as read-only (copyWarehouse before changing anything).
 */
export function matrixWarehouse(version: PaimonJavaVersion): Promise<string> {
  return sharedDirectory(`paimon-matrix-${FULL_VERSION[version]}`, async (staging) => {
    await java(version).createMatrix(staging);
  });
}

const sharedBuilds = new Map<string, Promise<string>>();

/**
 * A directory under $TEST_TMP built once per test run and shared by the test files (treat it as
 * read-only): `build` fills a staging directory, which is marked complete and renamed to `name`.
 * One build per process; several test processes may build at once, and the first rename wins.
 */
export function sharedDirectory(name: string, build: (staging: string) => Promise<void>): Promise<string> {
  let p = sharedBuilds.get(name);
  if (!p) {
    p = buildShared(name, build);
    sharedBuilds.set(name, p);
  }
  return p;
}

async function buildShared(name: string, build: (staging: string) => Promise<void>): Promise<string> {
  const final = join(testTmp(), name);
  if (existsSync(join(final, '.complete'))) return final;
  const staging = tempWarehouse(`${name}-staging`);
  await build(staging);
  writeFileSync(join(staging, '.complete'), new Date().toISOString());
  try {
    renameSync(staging, final);
  } catch {
    // Another process finished first (or a stale incomplete directory is in the way).
    if (!existsSync(join(final, '.complete'))) {
      rmSync(final, { recursive: true, force: true });
      renameSync(staging, final);
    } else {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return final;
}
