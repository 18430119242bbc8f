/**
 * Paimon's REST catalog test server (RESTCatalogServer, run by RestServerLauncher.java; class path
 * from tests/setup/rest-catalog.sh) as a child process of one test file: on a free loopback port,
 * over its own data directory, with a fixed bearer token. `stop()` closes its stdin (the launcher
 * then shuts the server down) and kills it by pid if it has not exited within 5 s.
 *
 * With `dataTokens` (the server's own storage options), the server runs as a catalog that hands
 * out data tokens: `data-token.enabled=true` reaches every client through the config overrides, the
 * data path may be an s3:// URI, and `setDataToken` / `revokeDataToken` decide what
 * `GET .../tables/{t}/token` answers (RestServerLauncher.java's stdin commands).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export type RestServerVersion = '1.4.2' | '2.0.0';

export interface RestServer {
  /** Base URL as the server prints it (http://localhost:<port>/). */
  url: string;
  dataPath: string;
  warehouse: string;
  token: string;
  /** Options for Paimon Java / pypaimon clients of this server (`metastore=rest`). */
  clientOptions: Record<string, string>;
  /** Data tokens only: the token `GET .../tables/{table}/token` hands out for `db.table` from now on. */
  setDataToken(table: string, token: Readonly<Record<string, string>>, expiresAtMillis: number): Promise<void>;
  /** Data tokens only: forget the token of `db.table` (the test server then invents a useless one). */
  revokeDataToken(table: string): Promise<void>;
  stop(): Promise<void>;
}

export interface RestServerOptions {
  /** The server's own storage options (s3.*): turns data tokens on (see the header). */
  dataTokens?: Readonly<Record<string, string>>;
  /** A DLF access key the server also accepts DLF-signed requests with (RestServerLauncher.java). */
  dlf?: { accessKeyId: string; accessKeySecret: string; region: string };
}

/** A Java properties line: backslash, separators and line breaks escaped. */
function propertiesLine(k: string, v: string): string {
  const esc = (x: string, key: boolean): string =>
    x.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(key ? /[=:\s#!]/g : /^[\s#!]/, (c) => `\\${c}`);
  return `${esc(k, true)}=${esc(v, false)}`;
}

function classPath(v: RestServerVersion): string {
  const env = process.env[v === '1.4.2' ? 'REST_CATALOG_CP_1_4' : 'REST_CATALOG_CP_2_0'];
  if (env !== undefined && env !== '') return env;
  return [join(HERE, `lib-classes-${v}`), join(HERE, '..', 'java', `lib-${v}`, '*'), join(HERE, `lib-${v}`, '*')].join(':');
}

export async function startRestServer(
  v: RestServerVersion,
  dataPath: string,
  warehouse = 'rest_wh',
  token = 'rest-test-token',
  options: RestServerOptions = {},
): Promise<RestServer> {
  if (!existsSync(join(classPath(v).split(':')[0]!, 'RestServerLauncher.class'))) {
    throw new Error(`the Paimon ${v} REST catalog server is not installed: run rest_catalog_install from tests/setup/rest-catalog.sh`);
  }
  const extra: string[] = [];
  if (options.dataTokens !== undefined) {
    const file = join(mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'rest-storage-')), 'storage.properties');
    writeFileSync(file, Object.entries(options.dataTokens).map(([k, x]) => propertiesLine(k, x)).join('\n') + '\n', { mode: 0o600 });
    extra.push(file);
  }
  const child: ChildProcess = spawn(
    process.env.PAIMON_JAVA_BIN ?? 'java',
    ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', classPath(v), 'RestServerLauncher', dataPath, warehouse, token, ...extra],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.dlf !== undefined ? { env: { ...process.env, REST_DLF: `${options.dlf.accessKeyId}:${options.dlf.accessKeySecret}:${options.dlf.region}` } } : {}),
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-4000);
  });
  let acked = 0;
  let sent = 0;
  const waiters: Array<{ n: number; done: () => void }> = [];
  const command = async (line: string): Promise<void> => {
    if (options.dataTokens === undefined) throw new Error('this REST server was started without data tokens');
    const n = ++sent;
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`REST catalog server ${v} did not acknowledge a data token command in 10 s: ${stderr}`)), 10_000);
      waiters.push({ n, done: () => (clearTimeout(timer), resolve()) });
    });
    child.stdin?.write(`${line}\n`);
    await done;
  };
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`REST catalog server ${v} did not start within 60 s: ${stderr}`));
    }, 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /REST_URL (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
      for (const a of out.matchAll(/ACK (\d+)\n/g)) acked = Math.max(acked, Number(a[1]));
      out = out.slice(-200);
      for (const w of waiters.splice(0)) if (acked >= w.n) w.done();
      else waiters.push(w);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`REST catalog server ${v} exited (${code}) before listening: ${stderr}`));
    });
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url,
    dataPath,
    warehouse,
    token,
    clientOptions: { metastore: 'rest', uri: url, warehouse, 'token.provider': 'bear', token },
    setDataToken: (table, t, expiresAtMillis) =>
      command(['TOKEN', encodeURIComponent(table), String(Math.trunc(expiresAtMillis)), ...Object.entries(t).map(([k, x]) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`)].join(' ')),
    revokeDataToken: (table) => command(`REVOKE ${encodeURIComponent(table)}`),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
