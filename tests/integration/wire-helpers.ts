/**
 * Shared by the transport's integration tests: the MariaDB started by tests/setup/mariadb.sh
 * (env MARIADB_*), a proxy started in-process on a free port, and mysql2 connections to either.
 */
import { tempDir } from '../support/temp-dir.js';
import { spawn, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { nativePasswordToken } from '../../protocol/auth.js';
import {
  CLIENT_CONNECT_WITH_DB,
  CLIENT_LONG_PASSWORD,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  CLIENT_TRANSACTIONS,
} from '../../protocol/constants.js';
import { buildHandshakeResponse41, parseHandshakeV10 } from '../../protocol/handshake.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { configSchema, type ProxyConfig } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';

export interface MariaDbEnv {
  host: string;
  port: number;
  user: string;
  password: string;
  socket: string;
  generalLog: string;
}

export function mariadb(): MariaDbEnv {
  const port = Number(process.env.MARIADB_PORT);
  if (!port) throw new Error('MARIADB_PORT is not set: run through tests/run.sh (tests/setup/mariadb.sh starts MariaDB)');
  return {
    host: '127.0.0.1',
    port,
    user: process.env.MARIADB_USER ?? 'app',
    password: process.env.MARIADB_PASSWORD ?? '',
    socket: process.env.MARIADB_SOCKET ?? '',
    generalLog: process.env.MARIADB_GENERAL_LOG ?? '',
  };
}

/** A scratch directory below $TEST_TMP (tests/support/temp-dir.ts). */
export const tmpDir = tempDir;

/**
 * How the relay tests relay: 'on' (the default: the native relay must be built, so a missing
 * build fails them rather than passing in JavaScript), or PPP_TEST_NATIVE_RELAY=off for the
 * JavaScript relay (tests/integration/relay-js/ runs the relay files that way).
 */
export function testNativeRelay(): 'on' | 'off' {
  return process.env.PPP_TEST_NATIVE_RELAY === 'off' ? 'off' : 'on';
}

/** A validated config: relay to MariaDB unless `upstream: null`. */
export function proxyConfig(overrides: Record<string, unknown> = {}, opts: { upstream?: boolean } = {}): ProxyConfig {
  const db = opts.upstream === false ? null : mariadb();
  const raw: Record<string, unknown> = {
    listen: { host: '127.0.0.1', port: 0 },
    catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: tmpDir('wh') }],
    logging: { level: 'silent' },
    ...(db ? { upstream: { host: db.host, port: db.port, native_relay: testNativeRelay() } } : {}),
    ...overrides,
  };
  return configSchema.parse(raw);
}

export async function startTestProxy(config: ProxyConfig = proxyConfig()): Promise<RunningProxy> {
  return startProxy(config, { logger: silentLogger() });
}

export type Conn = mysql.Connection;

export async function connect(port: number, extra: Partial<mysql.ConnectionOptions> = {}): Promise<Conn> {
  const db = mariadb();
  return mysql.createConnection({
    host: '127.0.0.1',
    port,
    user: db.user,
    password: db.password,
    database: 'proxytest',
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: true,
    connectTimeout: 20_000,
    ...extra,
  });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with a deadline (killed after `timeoutMs`). */
export function run(cmd: string, args: string[], opts: SpawnOptions & { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin!.end(opts.input ?? '');
  });
}

/** Error fields that must be identical direct and through the proxy. */
export function errorShape(e: unknown): { errno: unknown; sqlState: unknown; sqlMessage: unknown } {
  const x = e as { errno?: unknown; sqlState?: unknown; sqlMessage?: unknown };
  return { errno: x.errno, sqlState: x.sqlState, sqlMessage: x.sqlMessage };
}

export async function captureError(p: Promise<unknown>): Promise<ReturnType<typeof errorShape>> {
  try {
    await p;
  } catch (e) {
    return errorShape(e);
  }
  throw new Error('expected the statement to fail');
}

/** Field metadata that must be identical direct and through the proxy. */
export function fieldShape(fields: unknown): unknown {
  if (!Array.isArray(fields)) return fields;
  return fields.map((f: { name: string; columnType: number; type: number; flags: number; columnLength: number; decimals: number; characterSet: number }) => ({
    name: f.name,
    type: f.columnType ?? f.type,
    flags: f.flags,
    length: f.columnLength,
    decimals: f.decimals,
    charset: f.characterSet,
  }));
}

/** A free loopback TCP port (closed again before it is returned). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePromise, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePromise(port));
    });
  });
}

export interface ChildProxy {
  pid: number;
  port: number;
  log: () => string;
  stop(): Promise<void>;
}

/** Starts `paimon-procedure-proxy serve` as a child process (the CLI users run) and waits until it listens. */
export async function startChildProxy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildProxy> {
  const port = await freePort();
  const cli = new URL('../../src/cli.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'serve', '--port', String(port), ...args], {
    env: { ...process.env, PPP_LOG_LEVEL: 'info', ...(args.includes('--upstream') ? { PPP_NATIVE_RELAY: testNativeRelay() } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 30_000;
  while (!out.includes('paimon-procedure-proxy listening')) {
    if (child.exitCode !== null) throw new Error(`proxy exited with ${child.exitCode}: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`proxy did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid!,
    port,
    log: () => out,
    stop: () =>
      new Promise((resolvePromise) => {
        if (child.exitCode !== null) return resolvePromise();
        child.once('exit', () => resolvePromise());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * A minimal client over a raw socket for commands mysql2 has no API for (COM_FIELD_LIST,
 * COM_STATISTICS): authenticates with mysql_native_password (the server checks the token), then
 * sends command payloads and collects the response packets until the server goes quiet.
 */
export class RawClient {
  private socket!: Socket;
  private readonly reader = new PacketReader();
  private waiting: (() => void) | null = null;
  greeting!: Buffer;

  async connect(port: number, user: string, password: string, database: string): Promise<void> {
    const { connect: netConnect } = await import('node:net');
    this.socket = netConnect({ host: '127.0.0.1', port });
    this.socket.on('data', (d: Buffer) => {
      this.reader.push(d);
      this.waiting?.();
    });
    const g = await this.nextPacket();
    this.greeting = g.payload;
    const h = parseHandshakeV10(g.payload);
    const caps = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_CONNECT_WITH_DB | CLIENT_LONG_PASSWORD | CLIENT_TRANSACTIONS;
    const resp = buildHandshakeResponse41({
      capabilities: caps, maxPacketSize: 1 << 24, characterSet: 33, mariadbCapabilities: 0, user,
      authResponse: nativePasswordToken(password, h.authPluginData), database, authPluginName: 'mysql_native_password', attributes: new Map(),
    });
    this.socket.write(encodePacket(resp, 1));
    const ok = await this.nextPacket();
    if (ok.payload[0] !== 0) throw new Error(`authentication failed: ${ok.payload.subarray(9).toString()}`);
  }

  private async nextPacket(timeoutMs = 10_000): Promise<Packet> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = this.reader.next();
      if (p) return p;
      if (Date.now() > deadline) throw new Error('timed out waiting for a packet');
      await new Promise<void>((r) => {
        this.waiting = r;
        setTimeout(r, 50);
      });
      this.waiting = null;
    }
  }

  /** Sends one command and returns the raw response packets (until 300 ms of silence). */
  command(payload: Buffer): Promise<Buffer[]> {
    return this.pipeline([payload]);
  }

  /** Sends several commands in one write (a pipelining client) and returns every packet until 300 ms of silence. */
  async pipeline(payloads: Buffer[]): Promise<Buffer[]> {
    this.socket.write(Buffer.concat(payloads.map((p) => encodePacket(p, 0))));
    const out: Buffer[] = [Buffer.from((await this.nextPacket()).raw)];
    for (;;) {
      try {
        out.push(Buffer.from((await this.nextPacket(300)).raw));
      } catch {
        return out;
      }
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A MariaDB of one test file's own (tests/setup/mariadb.sh's mariadb_start in a private directory). */
export interface PrivateMariaDb {
  port: number;
  /** Runs SQL as root over the socket; the result as tab-separated text. */
  rootSql(sql: string): Promise<string>;
  /** Stops it by its PID (mariadb_stop). */
  stop(): Promise<void>;
}

/** Starts a private MariaDB under `dir` with `extraArgs` (more mariadbd options, as MARIADB_EXTRA_ARGS). */
export async function startPrivateMariaDb(dir: string, extraArgs = ''): Promise<PrivateMariaDb> {
  const sh = (script: string, timeoutMs: number): Promise<RunResult> =>
    run('bash', ['-c', `set -euo pipefail; export MARIADB_ROOT_DIR=${JSON.stringify(dir)}; source tests/setup/mariadb.sh; ${script}`], {
      cwd: new URL('../..', import.meta.url).pathname,
      timeoutMs,
      env: { ...process.env, MARIADB_EXTRA_ARGS: extraArgs },
    });
  const r = await sh('mariadb_start >/dev/null; echo "PORT=$MARIADB_PORT"', 180_000);
  const m = /PORT=(\d+)/.exec(r.stdout);
  if (r.code !== 0 || !m) throw new Error(`private MariaDB did not start: ${r.stdout} ${r.stderr}`);
  const socket = join(dir, 'mysqld.sock');
  return {
    port: Number(m[1]),
    async rootSql(sql: string): Promise<string> {
      const q = await run('mariadb', ['--no-defaults', '-uroot', '-S', socket, '-N', '-B', '-e', sql], { timeoutMs: 30_000 });
      if (q.code !== 0) throw new Error(`mariadb -e failed: ${q.stderr}`);
      return q.stdout.trim();
    },
    async stop(): Promise<void> {
      await sh('mariadb_stop', 60_000);
    },
  };
}
