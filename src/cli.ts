#!/usr/bin/env node
/**
 * The `paimon-procedure-proxy` command.
 *
 *   paimon-procedure-proxy serve [--config FILE] [--host H] [--port P] [--warehouse DIR] [--upstream HOST:PORT] [--audit-log FILE] [--metrics-port P] [--trace-file FILE] [--workers N] [--no-demo]
 *   paimon-procedure-proxy call "<CALL ...>" [--config FILE] [--warehouse DIR] [--json]
 *   paimon-procedure-proxy hash-password        (reads a password from standard input)
 */
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve as resolvePath } from 'node:path';
import { cachingSha2Hash, nativePasswordHash } from '../protocol/auth.js';
import { runCallCommand } from './call-command.js';
import { ConfigError, loadConfig } from './config.js';
import { startProxy } from './proxy-app.js';
import type { ProxyConfig } from './config-schema.js';
import { createFileIO } from './paimon/fs/file-io-factory.js';
import { ensureDemoTable } from './paimon/table/demo-table.js';
import { closeDataEngine } from './paimon/data/duckdb-engine.js';

const USAGE = `Usage:
  paimon-procedure-proxy serve [--config FILE] [--host H] [--port P] [--warehouse DIR] [--upstream HOST:PORT] [--audit-log FILE] [--metrics-port P] [--trace-file FILE] [--workers N] [--no-demo]
      Start the MySQL-protocol proxy. Without an upstream FE it runs standalone on the embedded
      default: one filesystem catalog 'paimon' with its warehouse in ./warehouse, listening on 127.0.0.1:9031;
      an empty embedded warehouse gets the demo table demo.orders (--no-demo: don't create it).
  paimon-procedure-proxy call "<CALL ...>" [--config FILE] [--warehouse DIR] [--json]
      Run one procedure against the configured catalogs without a server and print its result.
  paimon-procedure-proxy hash-password
      Read a password from standard input and print the hashes for a standalone users file.

Environment: PPP_CONFIG, PPP_LISTEN_HOST, PPP_LISTEN_PORT, PPP_UPSTREAM, PPP_UPSTREAM_PROXY_PROTOCOL,
PPP_UPSTREAM_TLS, PPP_UPSTREAM_TLS_CA, PPP_WORKERS, PPP_WAREHOUSE, PPP_USERS_FILE, PPP_TLS_CERT, PPP_TLS_KEY, PPP_LOG_LEVEL.`;

function fail(message: string, code = 2): never {
  process.stderr.write(`paimon-procedure-proxy: ${message}\n`);
  process.exit(code);
}

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      warehouse: { type: 'string' },
      upstream: { type: 'string' },
      'audit-log': { type: 'string' },
      'metrics-port': { type: 'string' },
      'trace-file': { type: 'string' },
      workers: { type: 'string' },
      'no-demo': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const { config, embeddedCatalog } = await loadConfig({
    file: values.config,
    overrides: { host: values.host, port: values.port, warehouse: values.warehouse, upstream: values.upstream, workers: values.workers },
  });
  // The audit file and the /metrics port from the command line win over the file.
  if (values['audit-log'] !== undefined) config.audit.file = resolvePath(values['audit-log']);
  if (values['metrics-port'] !== undefined) {
    const p = Number(values['metrics-port']);
    if (!Number.isInteger(p) || p < 0 || p > 65535) fail(`--metrics-port: expected a port number 0..65535, got '${values['metrics-port']}'`);
    config.metrics.port = p;
  }
  // Trace spans of every CALL as JSON lines (tracing is off unless this or tracing.file/console is set).
  if (values['trace-file'] !== undefined) config.tracing.file = resolvePath(values['trace-file']);
  const workers = config.listen.workers;
  if (cluster.isPrimary && embeddedCatalog && !config.upstream && !values['no-demo']) await createDemoIfEmpty(config);
  if (workers > 1 && cluster.isPrimary) return superviseWorkers(workers);
  const index = cluster.isWorker ? Number(process.env.PPP_WORKER_INDEX ?? '0') : 0;
  const proxy = await startProxy(config, workers > 1 ? { worker: { index, count: workers } } : {});
  const { logger } = proxy;
  // A bug reached by one connection must not take the others down with the process.
  process.on('uncaughtException', (e) => logger.error({ err: e }, 'uncaught exception (connection dropped, proxy keeps running)'));
  process.on('unhandledRejection', (e) => logger.error({ err: e }, 'unhandled rejection'));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // DuckDB's temp directory goes with the process.
    void proxy.close().then(closeDataEngine).then(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/**
 * The embedded default with an empty warehouse gets `demo.orders` (primary key, partitioned,
 * several snapshots), so that a newcomer can try every procedure at once.
 */
async function createDemoIfEmpty(config: ProxyConfig): Promise<void> {
  const catalog = config.catalogs[0];
  if (!catalog) return;
  const fileIO = createFileIO(catalog.warehouse, catalog.properties);
  const result = await ensureDemoTable(catalog.warehouse, fileIO);
  if (result.created) {
    process.stderr.write(
      `paimon-procedure-proxy: created the demo table ${catalog.name}.${result.table} (${result.snapshots} snapshots) in ${catalog.warehouse}\n`,
    );
  }
}

/**
 * `listen.workers` > 1: this process only supervises; each worker runs a whole proxy on the
 * shared listen socket (node:cluster hands connections out round-robin). A worker that dies is
 * replaced; SIGINT/SIGTERM stop them all; SIGHUP is passed on to each (audit file reopen).
 */
function superviseWorkers(count: number): void {
  let stopping = false;
  const fork = (index: number) => {
    const w = cluster.fork({ PPP_WORKER_INDEX: String(index) });
    w.on('exit', (code, signal) => {
      if (stopping) return;
      process.stderr.write(`paimon-procedure-proxy: worker ${index} exited (${signal ?? code}); starting a new one\n`);
      setTimeout(() => fork(index), 500);
    });
  };
  for (let i = 0; i < count; i++) fork(i);
  const stop = () => {
    if (stopping) process.exit(1);
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    setTimeout(() => process.exit(0), 6000).unref();
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // logrotate's `postrotate kill -HUP <pid>` signals the process it knows, this one: every worker
  // has the audit file open and reopens it on its own SIGHUP (ops-runtime). Handling it here
  // also keeps the supervisor from exiting, Node's default on SIGHUP.
  process.on('SIGHUP', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGHUP');
  });
}

async function call(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      warehouse: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) fail('call takes exactly one statement in quotes, e.g. call "CALL paimon.sys.expire_snapshots(table => \'db.t\')"');
  const { config } = await loadConfig({ file: values.config, overrides: { warehouse: values.warehouse } });
  // src/call-command.ts (procedure side) receives the statement and the flags.
  try {
    process.exitCode = await runCallCommand(argv, config);
  } finally {
    await closeDataEngine();
  }
}

function hashPassword(): void {
  const input = readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  if (input === '') fail('an empty password needs no hash (omit native_hash and sha2_hash)');
  process.stdout.write(`native_hash: '${nativePasswordHash(input)}'\nsha2_hash: '${cachingSha2Hash(input)}'\n`);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'call':
      return call(rest);
    case 'hash-password':
      return hashPassword();
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return;
    default:
      fail(`unknown command '${command}'\n${USAGE}`);
  }
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) fail(e.message);
  if (e instanceof Error && 'code' in e && typeof (e as { code: unknown }).code === 'string' && (e as { code: string }).code.startsWith('ERR_PARSE_ARGS')) {
    fail(`${e.message}\n${USAGE}`);
  }
  if (e instanceof Error && (e as NodeJS.ErrnoException).code === 'EADDRINUSE') fail(`cannot listen: ${e.message}`);
  fail(e instanceof Error ? e.message : String(e), 1);
});
