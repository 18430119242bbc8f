/**
 * The catalog servers bench/catalogs.ts runs both sides through, each behind one shape: the Hive
 * Metastore 4.0.0 (tests/setup/hive-metastore.sh, embedded Derby, Paimon 1.4.2's HiveCatalog with
 * `lock.enabled` on the Java side) and Paimon's own RESTCatalogServer 1.4.2 / 2.0.0
 * (tests/interop/rest/rest-server.ts, Paimon Java of the same version on the Java side). A peer
 * tells Paimon Java how to reach the catalog (class path, PAIMON_CATALOG_OPTIONS, the warehouse
 * argument), tells the proxy the same (a `catalogs:` entry as a config file would have it), says
 * where a table's directory is, and stops the server it started, by pid.
 *
 * Class paths and the --add-opens list come from the setup scripts' own `_start` functions, so
 * the bench runs the same JVMs the interop tests run; a variable already set in the environment
 * wins (e.g. a frozen copy of a class path while others recompile it).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { freePort } from '../tests/integration/wire-helpers.js';
import { startRestServer, type RestServerVersion } from '../tests/interop/rest/rest-server.js';

const ROOT = resolve(import.meta.dirname, '..');

export type CatalogKind = 'hms' | 'rest-1.4.2' | 'rest-2.0.0';
export const CATALOG_KINDS: readonly CatalogKind[] = ['hms', 'rest-1.4.2', 'rest-2.0.0'];

export interface CatalogPeer {
  label: string;
  /** Class path of PaimonTool for this catalog (the Hive client jars appended for the metastore). */
  javaClassPath: string;
  /** PAIMON_CATALOG_OPTIONS for PaimonTool: `metastore` and how to reach it. */
  javaCatalogOptions: Record<string, string>;
  /** PaimonTool's <wh> argument (the REST catalog's warehouse is a name, taken from the options). */
  javaWarehouse: string;
  /** The proxy's `catalogs:` entry for this catalog, named `paimon`. */
  oursCatalog: Record<string, unknown>;
  tableDir(db: string, table: string): string;
  /**
   * Whether Paimon Java's LocalOrphanFilesClean needs the table to have a branch through this
   * catalog: Paimon's RESTApi.listBranches answers an immutable emptyList() for a table without
   * branches, and OrphanFilesClean.validBranches adds `main` to that list (1.4.2 and 2.0.0 both
   * throw UnsupportedOperationException there).
   */
  orphanCleanNeedsBranch: boolean;
  stop(): Promise<void>;
}

/** What the setup scripts export, with the caller's environment taking precedence. */
export interface SetupEnv {
  JAVA_OPENS: string;
  PAIMON_JAVA_CP_1_4: string;
  PAIMON_JAVA_CP_2_0: string;
  HIVE_CLIENT_CP: string;
  REST_CATALOG_CP_1_4: string;
  REST_CATALOG_CP_2_0: string;
}
const SETUP_KEYS = ['JAVA_OPENS', 'PAIMON_JAVA_CP_1_4', 'PAIMON_JAVA_CP_2_0', 'HIVE_CLIENT_CP', 'REST_CATALOG_CP_1_4', 'REST_CATALOG_CP_2_0'] as const;

function bash(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((res, rej) => {
    execFile('bash', ['-c', `set -euo pipefail; ${script}`, 'bench', ...args], { cwd: ROOT, env, timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) rej(new Error(`${script.split(';').pop()?.trim() ?? script} failed: ${stderr.slice(-2000)}`));
      else res(stdout);
    });
  });
}

/**
 * The class paths with their compiled-class directories copied under `dir`, so that a tool
 * recompiled by someone else while the bench runs (the setup scripts swap those directories in
 * place) cannot change or break a JVM started halfway through. Jar directories are left shared.
 */
export function freezeClassPaths(env: SetupEnv, dir: string): SetupEnv {
  const frozen = new Map<string, string>();
  const freeze = (cp: string): string =>
    cp
      .split(':')
      .map((entry) => {
        if (entry.endsWith('*') || !basename(entry).startsWith('lib-classes-') || !existsSync(entry) || !statSync(entry).isDirectory()) return entry;
        let copy = frozen.get(entry);
        if (copy === undefined) {
          copy = join(dir, `${frozen.size}-${basename(entry)}`);
          cpSync(entry, copy, { recursive: true });
          frozen.set(entry, copy);
        }
        return copy;
      })
      .join(':');
  return { ...env, PAIMON_JAVA_CP_1_4: freeze(env.PAIMON_JAVA_CP_1_4), PAIMON_JAVA_CP_2_0: freeze(env.PAIMON_JAVA_CP_2_0), REST_CATALOG_CP_1_4: freeze(env.REST_CATALOG_CP_1_4), REST_CATALOG_CP_2_0: freeze(env.REST_CATALOG_CP_2_0) };
}

export async function setupEnv(): Promise<SetupEnv> {
  const out = await bash(
    'source tests/setup/paimon-java.sh; paimon_java_start; source tests/setup/hive-metastore.sh; hive_metastore_start; ' +
      `source tests/setup/rest-catalog.sh; rest_catalog_start; for k in ${SETUP_KEYS.join(' ')}; do printf '%s\\n' "\${!k}"; done`,
    [],
    process.env,
    30_000,
  );
  const lines = out.split('\n');
  const env = {} as Record<(typeof SETUP_KEYS)[number], string>;
  SETUP_KEYS.forEach((k, i) => (env[k] = process.env[k] ?? lines[i] ?? ''));
  return env;
}

/** A Hive Metastore 4.0.0 on a free loopback port over its own Derby directory. */
async function startHms(env: SetupEnv, root: string): Promise<CatalogPeer> {
  const dir = mkdtempSync(join(root, 'hms-server-'));
  const port = await freePort();
  const warehouse = mkdtempSync(join(root, 'hms-wh-'));
  const uri = `thrift://127.0.0.1:${port}`;
  const scriptEnv = { ...process.env, JAVA_OPENS: env.JAVA_OPENS };
  // The launcher's watchdog stops the metastore once this process is gone, should it die first.
  await bash('source tests/setup/hive-metastore.sh; hive_metastore_start; hive_metastore_launch "$1" "$2" "$3"', [dir, String(port), String(process.pid)], scriptEnv, 300_000);
  return {
    label: 'Hive Metastore 4.0.0 (Paimon 1.4.2 HiveCatalog, lock.enabled)',
    javaClassPath: `${env.PAIMON_JAVA_CP_1_4}:${env.HIVE_CLIENT_CP}`,
    javaCatalogOptions: { metastore: 'hive', uri, 'lock.enabled': 'true' },
    javaWarehouse: warehouse,
    oursCatalog: { name: 'paimon', type: 'hms', uri, warehouse, properties: { 'lock.enabled': 'true' } },
    tableDir: (db, t) => join(warehouse, `${db}.db`, t),
    orphanCleanNeedsBranch: false,
    stop: async () => {
      const pid = Number(readFileSync(join(dir, 'hms.pid'), 'utf8').trim());
      await bash('source tests/setup/hive-metastore.sh; hive_metastore_kill "$1"', [dir], scriptEnv, 30_000);
      // Gone before its Derby directory is deleted (at most 15 s, then it is killed outright).
      for (let i = 0; i < 150 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const REST_TOKEN = 'bench-rest-token-41c9';

async function startRest(v: RestServerVersion, env: SetupEnv, root: string): Promise<CatalogPeer> {
  const dataPath = mkdtempSync(join(root, `rest-${v}-data-`));
  process.env[v === '1.4.2' ? 'REST_CATALOG_CP_1_4' : 'REST_CATALOG_CP_2_0'] = v === '1.4.2' ? env.REST_CATALOG_CP_1_4 : env.REST_CATALOG_CP_2_0;
  const server = await startRestServer(v, dataPath, 'bench_wh', REST_TOKEN);
  return {
    label: `Paimon ${v} RESTCatalogServer (Paimon ${v} RESTCatalog)`,
    javaClassPath: v === '1.4.2' ? env.PAIMON_JAVA_CP_1_4 : env.PAIMON_JAVA_CP_2_0,
    javaCatalogOptions: server.clientOptions,
    javaWarehouse: 'rest',
    oursCatalog: { name: 'paimon', type: 'rest', uri: server.url, warehouse: server.warehouse, 'token.provider': 'bear', token: REST_TOKEN },
    tableDir: (db, t) => join(dataPath, `${db}.db`, t),
    orphanCleanNeedsBranch: true,
    stop: () => server.stop(),
  };
}

/** Starts the catalog's server with its directories under `root`. */
export function startCatalogPeer(kind: CatalogKind, env: SetupEnv, root: string): Promise<CatalogPeer> {
  if (kind === 'hms') return startHms(env, root);
  return startRest(kind === 'rest-1.4.2' ? '1.4.2' : '2.0.0', env, root);
}
