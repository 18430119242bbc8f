/**
 * Shared by the transport's integration tests: the MariaDB started by tests/setup/mariadb.sh
 * (env MARIADB_*), a proxy started in-process on a free port, and mysql2 connections to either.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
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

export function tmpDir(prefix: string): string {
  const base = process.env.TEST_TMP ?? tmpdir();
  return mkdtempSync(join(base, `${prefix}-`));
}

/** A validated config: relay to MariaDB unless `upstream: null`. */
export function proxyConfig(overrides: Record<string, unknown> = {}, opts: { upstream?: boolean } = {}): ProxyConfig {
  const db = opts.upstream === false ? null : mariadb();
  const raw: Record<string, unknown> = {
    listen: { host: '127.0.0.1', port: 0 },
    catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: tmpDir('wh') }],
    logging: { level: 'silent' },
    ...(db ? { upstream: { host: db.host, port: db.port } } : {}),
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
