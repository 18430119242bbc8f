/**
 * Paimon's REST catalog test server (RESTCatalogServer, run by RestServerLauncher.java; class path
 * from tests/setup/rest-catalog.sh) as a child process of one test file: on a free loopback port,
 * over its own data directory, with a fixed bearer token. `stop()` closes its stdin (the launcher
 * then shuts the server down) and kills it by pid if it has not exited within 5 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  stop(): Promise<void>;
}

function classPath(v: RestServerVersion): string {
  const env = process.env[v === '1.4.2' ? 'REST_CATALOG_CP_1_4' : 'REST_CATALOG_CP_2_0'];
  if (env !== undefined && env !== '') return env;
  return [join(HERE, `lib-classes-${v}`), join(HERE, '..', 'java', `lib-${v}`, '*'), join(HERE, `lib-${v}`, '*')].join(':');
}

export async function startRestServer(v: RestServerVersion, dataPath: string, warehouse = 'rest_wh', token = 'rest-test-token'): Promise<RestServer> {
  if (!existsSync(join(classPath(v).split(':')[0]!, 'RestServerLauncher.class'))) {
    throw new Error(`the Paimon ${v} REST catalog server is not installed: run rest_catalog_install from tests/setup/rest-catalog.sh`);
  }
  const child: ChildProcess = spawn(
    process.env.PAIMON_JAVA_BIN ?? 'java',
    ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', classPath(v), 'RestServerLauncher', dataPath, warehouse, token],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-4000);
  });
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
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
