/**
 * Support for the maintenance-procedure interop tests: run Paimon Java's reference tool
 * (tests/interop/java/PaimonTool.java, compiled per version into lib-classes-<v>/), copy
 * warehouses, run our procedures through the real executor over a filesystem catalog, and
 * compare the resulting table trees.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseJson, type JsonValue } from '../../src/paimon/json.js';
import { LocalFileIO } from '../../src/paimon/local-file-io.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { ProcedureExecutor, type CallOutcome } from '../../procedures/executor.js';
import { ProcedureRegistry } from '../../procedures/registry.js';
import type { ArgumentValue, CallArgument } from '../../procedures/binding.js';
import type { ParamSpec } from '../../procedures/signature.js';
import type { ProcedureDefinition } from '../../procedures/registry.js';
import { configSchema } from '../../src/config-schema.js';
import { MaintenanceTable } from '../../procedures/planning/table-context.js';
import { mergeEntries as mergeMaintenanceEntries, type MaintenanceFileEntry } from '../../src/paimon/maintenance/types.js';

const run = promisify(execFile);
/** PROCS_JAVA_DIR lets a run use a frozen copy of the built tool (tests/interop/java by default). */
const JAVA_DIR = process.env.PROCS_JAVA_DIR ?? resolve(import.meta.dirname, 'java');

export const PAIMON_VERSIONS = ['1.4.2', '2.0.0'] as const;
export type PaimonVersion = (typeof PAIMON_VERSIONS)[number];

export function javaAvailable(version: PaimonVersion): boolean {
  return existsSync(join(JAVA_DIR, `lib-classes-${version}`, 'PaimonTool.class'));
}

/** Run one PaimonTool command; returns its JSON output (64-bit exact). */
export async function paimon(version: PaimonVersion, ...args: string[]): Promise<JsonValue> {
  const cp = `${join(JAVA_DIR, `lib-classes-${version}`)}:${join(JAVA_DIR, `lib-${version}`, '*')}`;
  try {
    const { stdout } = await run('java', ['-cp', cp, 'PaimonTool', ...args], { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 });
    return parseJson(stdout.trim().split('\n').pop() ?? 'null', `PaimonTool ${args[0]}`);
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    const tail = (err.stderr ?? '').split('\n').filter((l) => l.includes('PaimonTool error') || l.includes('Exception')).slice(0, 5);
    throw new Error(`PaimonTool ${args.join(' ')} failed: ${tail.join(' | ') || err.message}`);
  }
}

export function tempDir(prefix: string): string {
  const base = process.env.TEST_TMP ?? tmpdir();
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}

/** Copy a warehouse, keeping modification times (orphan cleaning depends on them). */
export function copyWarehouse(from: string, to: string): void {
  cpSync(from, to, { recursive: true, preserveTimestamps: true });
}

/** Every file below `dir`, relative, sorted; Java's .crc side files are ignored. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!e.name.endsWith('.crc')) out.push(relative(dir, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

export function readText(p: string): string {
  return readFileSync(p, 'utf8');
}

export function fileSize(p: string): number {
  return statSync(p).size;
}

/** A schema file for `create-table`. */
export function writeSchema(dir: string, schema: object): string {
  const p = join(tempDir('schema-'), 'schema.json');
  writeFileSync(p, JSON.stringify(schema));
  return p;
}

/** An executor over one filesystem catalog named `paimon` at `warehouse`, with the given procedures. */
export function executorFor(warehouse: string, procedures: readonly ProcedureDefinition<readonly ParamSpec[]>[], limits: object = {}): ProcedureExecutor {
  const config = configSchema.parse({ procedures: limits });
  return new ProcedureExecutor({
    registry: new ProcedureRegistry(procedures),
    catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', warehouse, new LocalFileIO())]),
    limits: config.procedures,
  });
}

function literal(v: string | number | bigint | boolean | null): ArgumentValue {
  if (v === null) return { kind: 'null' };
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (typeof v === 'boolean') return { kind: 'boolean', value: v };
  const b = BigInt(v);
  return { kind: 'integer', value: b, text: b.toString() };
}

/** CALL paimon.sys.<procedure>(name => value, ...) through the executor. */
export async function callNamed(
  executor: ProcedureExecutor,
  procedure: string,
  args: Record<string, string | number | bigint | boolean | null>,
  signal: AbortSignal = new AbortController().signal,
): Promise<CallOutcome> {
  const callArgs: CallArgument[] = Object.entries(args).map(([name, v], i) => ({ name, value: literal(v), offset: i }));
  return executor.run(
    { catalog: 'paimon', procedure, args: callArgs, statement: `CALL paimon.sys.${procedure}(...)` },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    signal,
  );
}

/** The first row of a successful outcome, or throw with the error. */
export function firstRow(o: CallOutcome): Record<string, string | number | bigint | boolean | Date | null> {
  if (!o.ok) throw new Error(`call failed: ${o.error.code}: ${o.error.message}`);
  const row = o.result.rows[0];
  if (!row) throw new Error('call returned no rows');
  return row;
}

/** Rows as Paimon Java reads them (`read` prints JSON lines; the last line is the summary we parse). */
export async function readRows(version: PaimonVersion, wh: string, db: string, tbl: string, at?: string): Promise<string[]> {
  const cp = `${join(JAVA_DIR, `lib-classes-${version}`)}:${join(JAVA_DIR, `lib-${version}`, '*')}`;
  const { stdout } = await run('java', ['-cp', cp, 'PaimonTool', 'read', wh, db, tbl, ...(at ? [at] : [])], {
    maxBuffer: 256 * 1024 * 1024,
    timeout: 300_000,
  });
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .sort();
}

/**
 * One Java-written table history used by the expire and rollback tests (`interop.t`): a
 * partitioned primary-key table with two buckets; snapshots 1-5 insert, tag3 on snapshot 3,
 * 6-10 overwrite the same keys, a compaction drops the overwritten files, more inserts, tag_mid,
 * more updates and a second compaction.
 */
export async function buildHistory(v: PaimonVersion, wh: string, opts: { changelog?: boolean } = {}): Promise<void> {
  const schema = writeSchema(wh, {
    fields: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'dt', type: 'DATE NOT NULL' },
      { name: 'v', type: 'STRING' },
    ],
    primaryKeys: ['dt', 'id'],
    partitionKeys: ['dt'],
    options: {
      bucket: '2',
      'write-only': 'true',
      ...(opts.changelog ? { 'changelog-producer': 'input' } : {}),
    },
  });
  await paimon(v, 'create-table', wh, 'interop', 't', schema);
  await paimon(v, 'write-loop', wh, 'interop', 't', '5', '0', '0'); // 1-5
  await paimon(v, 'create-tag', wh, 'interop', 't', 'tag3', '3');
  await paimon(v, 'write-loop', wh, 'interop', 't', '5', '0', '0'); // 6-10: same keys again
  await paimon(v, 'compact', wh, 'interop', 't'); // drops the overwritten files
  await paimon(v, 'write-loop', wh, 'interop', 't', '3', '0', '100');
  await paimon(v, 'create-tag', wh, 'interop', 't', 'tag_mid');
  await paimon(v, 'write-loop', wh, 'interop', 't', '3', '0', '0');
  await paimon(v, 'compact', wh, 'interop', 't');
}

/** Names of the data files live in a table's latest snapshot (merged base + delta manifests), read with our library. */
export async function liveDataFiles(wh: string, db: string, tbl: string): Promise<string[]> {
  const location = `${wh}/${db}.db/${tbl}`;
  const t = await MaintenanceTable.open({
    catalog: 'paimon',
    database: db,
    table: tbl,
    branch: null,
    location,
    fileIO: new LocalFileIO(),
    identifier: `${db}.${tbl}`,
  });
  const latestId = await t.latestSnapshotId();
  if (latestId === null) return [];
  const s = await t.trySnapshot(latestId);
  if (s === null) throw new Error(`snapshot ${latestId} vanished`);
  const merged = new Map<string, MaintenanceFileEntry>();
  for (const list of [s.baseManifestList, s.deltaManifestList]) {
    for (const m of await t.readManifestList(list)) mergeMaintenanceEntries(await t.readManifest(m.fileName), merged);
  }
  return [...merged.values()].filter((e) => e.kind === 'ADD').map((e) => e.fileName).sort();
}
