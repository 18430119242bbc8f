/**
 * The Flink reference engine for interop tests: PyFlink 2.0.2 with paimon-flink-2.0 at Paimon 1.4.2
 * or 2.0.0 (tests/setup/flink.sh), run as ONE long-lived peer program per test process and version
 * (tests/interop/python/flink_peer.py: a batch TableEnvironment over a local mini-cluster), driven
 * by JSON lines. The JVM and mini-cluster start cost 15-30 s, so it starts lazily on the first
 * request and then serves every statement of the file.
 *
 * API:
 *   flink(version)                 the peer of '1.4.2' | '2.0.0' (one per process)
 *     .sql(sql, { warehouse, database, timeoutMs })  -> { columns, rows } (rows: column -> JSON-safe
 *                                  value); rejects with PeerError carrying Flink's exception chain
 *     .trySql(...)                 the same, resolving { ok: false, error } instead of rejecting
 *     .streamStart(sql, catalogs)  submits a streaming query in the peer's streaming environment
 *                                  (catalogs: name -> warehouse), resolving its handle once RUNNING
 *     .streamPoll(handle)          the rows it has emitted so far, and its error if it ended
 *     .streamStop(handle)          cancels its job
 *     .stats()                     the Flink JVM's peak and current RSS (kB)
 *     .stop()                      kills the peer and its JVM by pid (also done at process exit)
 *
 * Environment (exported by flink_start; derived from the repository layout when unset): FLINK_PYTHON,
 * FLINK_PEER_SCRIPT, FLINK_JARS_1_4, FLINK_JARS_2_0; FLINK_JVM_ARGS overrides the JVM flags.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PeerError, parseJson, type Json, type Row } from './peers.js';
import { eachLine } from '../support/each-line.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export const FLINK_PAIMON_VERSIONS = ['1.4.2', '2.0.0'] as const;
export type FlinkPaimonVersion = (typeof FLINK_PAIMON_VERSIONS)[number];

/** A small heap, serial GC and C1 only: the tables are tiny, and 2 shared cores favour a quick start. */
const DEFAULT_JVM_ARGS = '-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1';
const START_TIMEOUT_MS = 180_000;
const DEFAULT_TIMEOUT_MS = 300_000;

export interface FlinkResult {
  columns: string[];
  rows: Row[];
}

export interface SqlOptions {
  /** Run in a filesystem Paimon catalog on this warehouse (created on first use). */
  warehouse?: string;
  /** The current database for unqualified names. */
  database?: string;
  timeoutMs?: number;
}

export interface FlinkStats {
  jvmPid: number;
  vmHwmKb: number | null;
  vmRssKb: number | null;
  /** The peer program's own (python) peak RSS. */
  pythonHwmKb: number | null;
}

type Answer = { id: number; ok: boolean; error?: string } & Record<string, Json>;

export function envOr(name: string, fallback: string): string {
  const v = process.env[name];
  return v !== undefined && v !== '' ? v : fallback;
}

/** How to start one engine peer program (a python script speaking the JSON-lines protocol). */
export interface EngineLaunch {
  python: string;
  script: string;
  args: string[];
  env: Record<string, string>;
  /** What to run when the interpreter is missing. */
  installHint: string;
}

/**
 * One long-lived engine peer program (python/flink_peer.py; a Spark peer would speak the same): a ready line first, then one
 * answer line per request line, in order; started lazily, killed with its JVM by pid at exit or on
 * a timeout (the next request then starts a new one).
 */
export class EnginePeer {
  private child: ChildProcess | null = null;
  private jvmPid: number | null = null;
  private ready: Promise<void> | null = null;
  private nextId = 1;
  private tail: Promise<unknown> = Promise.resolve();
  private stderrTail = '';
  private waiting: ((line: string | Error) => void) | null = null;

  constructor(
    /** Names the engine in errors, e.g. "Flink (Paimon 1.4.2)". */
    readonly label: string,
    private readonly launch: () => EngineLaunch,
  ) {}

  /** Statement answers; rejects with Flink's exception chain when the statement fails. */
  async sql(sql: string, opts: SqlOptions = {}): Promise<FlinkResult> {
    const a = await this.trySql(sql, opts);
    if (!a.ok) throw new PeerError(`${this.label} failed on ${sql.slice(0, 300)}: ${a.error}`, null, '', this.stderrTail);
    return { columns: a.columns, rows: a.rows };
  }

  trySql(sql: string, opts: SqlOptions = {}): Promise<({ ok: true } & FlinkResult) | { ok: false; error: string }> {
    const req: Record<string, Json> = { op: 'sql', sql };
    if (opts.warehouse !== undefined) req.warehouse = opts.warehouse;
    if (opts.database !== undefined) req.database = opts.database;
    return this.request(req, `${this.label} SQL ${sql.slice(0, 120)}`, opts.timeoutMs).then((a) =>
      a.ok ? { ok: true as const, columns: a.columns as string[], rows: a.rows as Row[] } : { ok: false as const, error: a.error ?? 'failed' },
    );
  }

  async streamStart(sql: string, catalogs: Record<string, string>, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<number> {
    const a = await this.request({ op: 'stream-start', sql, catalogs }, `${this.label} stream ${sql.slice(0, 120)}`, timeoutMs);
    if (!a.ok) throw new PeerError(`${this.label} cannot start the streaming query ${sql.slice(0, 300)}: ${a.error ?? 'failed'}`, null, '', this.stderrTail);
    return Number(a.stream);
  }

  async streamPoll(stream: number): Promise<{ rows: Row[]; error: string | null }> {
    const a = await this.request({ op: 'stream-poll', stream }, `${this.label} stream-poll`, 30_000);
    if (!a.ok) throw new PeerError(`${this.label} stream-poll: ${a.error ?? 'failed'}`, null, '', this.stderrTail);
    return { rows: a.rows as Row[], error: typeof a.error === 'string' ? a.error : null };
  }

  async streamStop(stream: number): Promise<void> {
    const a = await this.request({ op: 'stream-stop', stream }, `${this.label} stream-stop`, 60_000);
    if (!a.ok) throw new PeerError(`${this.label} stream-stop: ${a.error ?? 'failed'}`, null, '', this.stderrTail);
  }

  async stats(): Promise<FlinkStats> {
    const a = await this.request({ op: 'stats' }, `${this.label} stats`, 30_000);
    return { jvmPid: Number(a.jvmPid), vmHwmKb: a.vmHwmKb === null ? null : Number(a.vmHwmKb), vmRssKb: a.vmRssKb === null ? null : Number(a.vmRssKb), pythonHwmKb: a.pythonHwmKb == null ? null : Number(a.pythonHwmKb) };
  }

  /** Requests run one at a time, in arrival order. */
  private request(req: Record<string, Json>, what: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Answer> {
    const result = this.tail.then(() => this.send(req, what, timeoutMs));
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private start(): Promise<void> {
    const { python, script, args, env: extra, installHint } = this.launch();
    if (!existsSync(python)) return Promise.reject(new PeerError(`${this.label}: no interpreter at ${python}: ${installHint}`, null, '', ''));
    const env: NodeJS.ProcessEnv = { ...process.env, ...extra, PYTHONUNBUFFERED: '1' };
    delete env.HADOOP_HOME;
    delete env.HADOOP_CONF_DIR;
    delete env.FLINK_HOME;
    delete env.SPARK_HOME;
    const child = spawn(python, [script, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.stderrTail = '';
    // The JVM's own output may reach stdout too: only JSON objects are answers.
    eachLine(child.stdout!, (line) => {
      if (line.startsWith('{')) this.waiting?.(line);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-8000);
    });
    child.stdin!.on('error', () => undefined);
    const gone = (why: string): void => {
      if (this.child === child) {
        this.child = null;
        this.ready = null;
        this.killJvm();
      }
      this.waiting?.(new Error(why));
    };
    child.on('error', (e) => gone(`cannot start ${python}: ${e.message}`));
    child.on('exit', (code, signal) => gone(`the engine peer exited with ${code ?? signal}: ${this.stderrTail.slice(-2000)}`));
    return new Promise<void>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.stop();
        reject(new PeerError(`${this.label} did not start within ${START_TIMEOUT_MS} ms`, null, '', this.stderrTail));
      }, START_TIMEOUT_MS);
      this.waiting = (line) => {
        clearTimeout(timer);
        this.waiting = null;
        if (line instanceof Error) {
          reject(new PeerError(`${this.label}: ${line.message}`, null, '', this.stderrTail));
          return;
        }
        const hello = parseJson(line) as { ready: boolean; jvmPid?: number; error?: string };
        if (!hello.ready) {
          reject(new PeerError(`${this.label} cannot start: ${hello.error ?? line}`, null, line, this.stderrTail));
          return;
        }
        this.jvmPid = Number(hello.jvmPid);
        this.idle(child, true);
        resolvePromise();
      };
    });
  }

  private idle(child: ChildProcess, idle: boolean): void {
    for (const h of [child, child.stdin, child.stdout, child.stderr] as ({ ref(): unknown; unref(): unknown } | null)[]) {
      if (idle) h?.unref();
      else h?.ref();
    }
  }

  private async send(req: Record<string, Json>, what: string, timeoutMs: number): Promise<Answer> {
    if (this.child === null || this.ready === null) this.ready = this.start();
    await this.ready;
    const child = this.child;
    if (child === null) throw new PeerError(`${what}: the engine peer is gone`, null, '', this.stderrTail);
    const id = this.nextId++;
    this.idle(child, false);
    return new Promise<Answer>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.stop();
        reject(new PeerError(`${what}: timed out after ${timeoutMs} ms (the engine peer was killed; the next request starts a new one)`, null, '', this.stderrTail));
      }, timeoutMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        this.waiting = null;
        this.idle(child, true);
        if (line instanceof Error) {
          reject(new PeerError(`${what}: ${line.message}`, null, '', this.stderrTail));
          return;
        }
        const a = parseJson(line) as Answer;
        if (a.id !== id) {
          reject(new PeerError(`${what}: the engine peer answered request ${String(a.id)}, expected ${id}`, null, line, ''));
          return;
        }
        resolvePromise(a);
      };
      child.stdin!.write(JSON.stringify({ ...req, id }) + '\n');
    });
  }

  private killJvm(): void {
    if (this.jvmPid !== null) {
      try {
        process.kill(this.jvmPid, 'SIGKILL');
      } catch {
        // already gone
      }
      this.jvmPid = null;
    }
  }

  stop(): void {
    const child = this.child;
    this.child = null;
    this.ready = null;
    if (child?.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.killJvm();
  }
}

const peers = new Map<string, EnginePeer>();
process.on('exit', () => {
  for (const p of peers.values()) p.stop();
});

/** The engine peer under `key`, created by `make` once per test process and stopped at its exit. */
export function sharedEnginePeer(key: string, make: () => EnginePeer): EnginePeer {
  let p = peers.get(key);
  if (p === undefined) {
    p = make();
    peers.set(key, p);
  }
  return p;
}

export type FlinkPeer = EnginePeer;

/** The Flink peer of one Paimon version, shared by the whole test process. */
export function flink(version: FlinkPaimonVersion): FlinkPeer {
  return sharedEnginePeer(`flink-${version}`, () =>
    new EnginePeer(`Flink (paimon-flink-2.0 ${version})`, () => {
      const v = version === '1.4.2' ? '1_4' : '2_0';
      return {
        python: envOr('FLINK_PYTHON', join(HERE, '.venv-flink', 'bin', 'python')),
        script: envOr('FLINK_PEER_SCRIPT', join(HERE, 'python', 'flink_peer.py')),
        args: [envOr(`FLINK_JARS_${v}`, join(HERE, 'java', `lib-flink-${version}`))],
        env: { JVM_ARGS: envOr('FLINK_JVM_ARGS', DEFAULT_JVM_ARGS) },
        installHint: 'run tests/setup/flink.sh (flink_install)',
      };
    }),
  );
}
