/**
 * Support for the engine tests (engines-*.test.ts): the table histories they share, built once per
 * test run, and what Flink SQL reads from them in few jobs (every Flink job costs seconds here, so
 * reads of many tables, targets and warehouses go into UNION ALL queries of a few dozen sources).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDirectory } from './peers.js';
import { copyWarehouse, javaBatch, kindsWarehouse, listTree, paimon, tempDir, type PaimonVersion } from './procedures-support.js';
import type { FlinkPeer } from './flink-peer.js';

/**
 * The table kinds the engine tests use (of KIND_TABLES, all with columns id INT, dt DATE, v STRING,
 * n BIGINT): primary key with deduplicate (partitioned) and with aggregation, append, deletion
 * vectors. Each has tag2 (snapshot 2) and branch b1 (from tag2, with one commit of its own).
 */
export const ENGINE_TABLES = ['k_pk', 'k_agg', 'k_append', 'k_dv'] as const;
export type EngineTable = (typeof ENGINE_TABLES)[number];

/** The kinds warehouse of Paimon Java `v` plus branch b1 on every ENGINE_TABLES table; shared, read-only. */
export async function enginesWarehouse(v: PaimonVersion): Promise<string> {
  const kinds = await kindsWarehouse(v);
  const dir = await sharedDirectory(`engines-base-${v}`, async (staging) => {
    const wh = join(staging, 'wh');
    copyWarehouse(kinds, wh);
    const steps: string[][] = [];
    for (const t of ENGINE_TABLES) {
      steps.push(['create-branch', wh, 'interop', t, 'b1', 'tag2'], ['write-loop', wh, 'interop', `${t}$branch_b1`, '1', '0', '50']);
    }
    await javaBatch(v, steps);
  });
  return join(dir, 'wh');
}

export interface StepResult {
  ok: boolean;
  stdout: string;
  error?: string;
}

/**
 * Every step's result, failures included: PaimonTool's batch stops at the first failing step, so
 * the rest is run again in a new batch (as many JVMs as failures, plus one).
 */
export async function javaBatchAll(v: PaimonVersion, steps: readonly string[][]): Promise<StepResult[]> {
  const out: StepResult[] = [];
  while (out.length < steps.length) {
    const f = join(tempDir('engines-batch-'), 'steps.json');
    writeFileSync(f, JSON.stringify(steps.slice(out.length)));
    const res = ((await paimon(v, 'batch', f)) as unknown as { results: StepResult[] }).results;
    if (res.length === 0) throw new Error(`PaimonTool batch ran no step of ${steps.length - out.length}`);
    out.push(...res);
  }
  return out;
}

function names(dir: string, prefix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => f.slice(prefix.length))
    .sort();
}

/** What is on disk for a table (the ground truth the system tables must show). */
export function onDisk(wh: string, table: string): { snapshots: number[]; tags: string[]; branches: string[] } {
  const root = join(wh, 'interop.db', table);
  return {
    snapshots: names(join(root, 'snapshot'), 'snapshot-')
      .map(Number)
      .sort((a, b) => a - b),
    tags: names(join(root, 'tag'), 'tag-'),
    branches: names(join(root, 'branch'), 'branch-'),
  };
}

/** Where a test plants an orphan in `table`: in a bucket directory it has (Paimon cleans only those). */
export function orphanPath(wh: string, table: string): string {
  const root = join(wh, 'interop.db', table);
  const bucket = listTree(root).find((f) => /^(?:[^/]+=[^/]+\/)*bucket-\d+\//.test(f));
  if (bucket === undefined) throw new Error(`${table} has no bucket directory`);
  return join('interop.db', table, bucket.slice(0, bucket.lastIndexOf('/')), `data-orphan-${table}.parquet`);
}

/** Every file of a table, names and contents, as one hash: equal hashes mean nothing changed. */
export function tableFingerprint(wh: string, table: string): string {
  const root = join(wh, 'interop.db', table);
  const h = createHash('sha256');
  for (const rel of listTree(root)) h.update(rel).update('\0').update(readFileSync(join(root, rel))).update('\0');
  return h.digest('hex');
}

/** A read target: the latest snapshot, a tag or a branch (Paimon Java's `read` target syntax). */
export type Target = { kind: 'latest' } | { kind: 'tag'; name: string } | { kind: 'branch'; name: string };

export function javaTarget(t: Target): string[] {
  return t.kind === 'latest' ? [] : [`${t.kind}:${t.name}`];
}

export function targetLabel(t: Target): string {
  return t.kind === 'latest' ? 'latest' : `${t.kind}:${t.name}`;
}

/** Every target of a table as it is on disk: latest, each tag, each branch. */
export function targetsOf(wh: string, table: string): Target[] {
  const d = onDisk(wh, table);
  return [{ kind: 'latest' }, ...d.tags.map((name) => ({ kind: 'tag' as const, name })), ...d.branches.map((name) => ({ kind: 'branch' as const, name }))];
}

/** One row as text, the same for Flink's and Java's rows: id|dt|v|n ("null" for NULL). */
export function rowText(r: Record<string, unknown>): string {
  return ['id', 'dt', 'v', 'n'].map((c) => (r[c] === null || r[c] === undefined ? 'null' : String(r[c]))).join('|');
}

export function javaRowTexts(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => rowText(JSON.parse(l) as Record<string, unknown>))
    .sort();
}

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Registers a Paimon catalog on `wh` in the Flink peer (idempotent per name). */
export async function flinkCatalog(peer: FlinkPeer, name: string, wh: string): Promise<void> {
  await peer.sql(`CREATE CATALOG IF NOT EXISTS \`${name}\` WITH ('type'='paimon', 'warehouse'=${quote(`file://${wh}`)})`);
}

export interface FlinkRead {
  key: string;
  catalog: string;
  table: string;
  target: Target;
}

function fromClause(r: FlinkRead): string {
  const base = `\`${r.catalog}\`.\`interop\``;
  if (r.target.kind === 'branch') return `${base}.\`${r.table}$branch_${r.target.name}\``;
  if (r.target.kind === 'tag') return `${base}.\`${r.table}\` /*+ OPTIONS('scan.tag-name'=${quote(r.target.name)}) */`;
  return `${base}.\`${r.table}\``;
}

const ROW_TEXT_SQL = "CONCAT_WS('|', COALESCE(CAST(id AS STRING), 'null'), COALESCE(CAST(dt AS STRING), 'null'), COALESCE(v, 'null'), COALESCE(CAST(n AS STRING), 'null'))";

/**
 * Sources per Flink query: one job per query costs a few seconds, but very wide queries were slower
 * here (one UNION ALL of ~480 system-table sources had not ended after five minutes, where queries of
 * 48 read ~320 in two and a half).
 */
const SOURCES_PER_QUERY = 48;

/** The rows of UNION ALL queries of at most SOURCES_PER_QUERY parts each. */
async function unionRows(peer: FlinkPeer, parts: readonly string[]): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < parts.length; i += SOURCES_PER_QUERY) {
    const res = await peer.sql(parts.slice(i, i + SOURCES_PER_QUERY).join('\nUNION ALL\n'), { timeoutMs: 600_000 });
    rows.push(...res.rows);
  }
  return rows;
}

/** Rows of many reads in few Flink jobs: key -> sorted row texts (a key with no rows is absent). */
export async function flinkReadMany(peer: FlinkPeer, reads: readonly FlinkRead[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const rows = await unionRows(
    peer,
    reads.map((r) => `SELECT ${quote(r.key)} AS k, ${ROW_TEXT_SQL} AS r FROM ${fromClause(r)}`),
  );
  for (const row of rows) {
    const k = String(row.k);
    const list = out.get(k) ?? [];
    list.push(String(row.r));
    out.set(k, list);
  }
  for (const l of out.values()) l.sort();
  return out;
}

export interface FlinkMeta {
  snapshots: number[];
  /** name@snapshot_id */
  tags: string[];
  branches: string[];
  /** data file names of the latest snapshot ($files) */
  files: string[];
}

/** $snapshots, $tags, $branches and $files of many tables in few Flink jobs. */
export async function flinkMetaMany(peer: FlinkPeer, tables: readonly { key: string; catalog: string; table: string }[]): Promise<Map<string, FlinkMeta>> {
  const out = new Map<string, FlinkMeta>();
  const parts: string[] = [];
  for (const t of tables) {
    const sys = (s: string): string => `\`${t.catalog}\`.\`interop\`.\`${t.table}$${s}\``;
    const k = quote(t.key);
    parts.push(
      `SELECT ${k} AS k, 's' AS w, CAST(snapshot_id AS STRING) AS x FROM ${sys('snapshots')}`,
      `SELECT ${k} AS k, 't' AS w, CONCAT(tag_name, '@', CAST(snapshot_id AS STRING)) AS x FROM ${sys('tags')}`,
      `SELECT ${k} AS k, 'b' AS w, branch_name AS x FROM ${sys('branches')}`,
      `SELECT ${k} AS k, 'f' AS w, file_path AS x FROM ${sys('files')}`,
    );
  }
  const rows = await unionRows(peer, parts);
  for (const t of tables) out.set(t.key, { snapshots: [], tags: [], branches: [], files: [] });
  for (const row of rows) {
    const m = out.get(String(row.k));
    if (m === undefined) continue;
    const x = String(row.x);
    if (row.w === 's') m.snapshots.push(Number(x));
    else if (row.w === 't') m.tags.push(x);
    else if (row.w === 'b') m.branches.push(x);
    else m.files.push(x.slice(x.lastIndexOf('/') + 1));
  }
  for (const m of out.values()) {
    m.snapshots.sort((a, b) => a - b);
    m.tags.sort();
    m.branches.sort();
    m.files.sort();
  }
  return out;
}

export interface StreamTable {
  key: string;
  catalog: string;
  wh: string;
  table: string;
}

/** How long one round of commits may take to reach the streams, and how many rounds there are. */
const STREAM_ROUND_MS = 15_000;
const STREAM_ROUNDS = 4;

/**
 * A Flink streaming read ('scan.mode'='latest': only what is committed after the job starts) of
 * many tables, in one streaming job per SOURCES_PER_QUERY tables. The job's Paimon enumerator picks
 * its starting snapshot a moment after the job is RUNNING, so a commit in that moment is not read:
 * `commit(round, tables)` commits one row per table (its row texts returned per key), and a new
 * round is committed to the tables whose latest committed row has not arrived after
 * STREAM_ROUND_MS. The jobs are cancelled before this returns, whatever happens.
 * Returns, per key, the streamed row texts and every row committed to it.
 */
export async function flinkStreamLatest(
  peer: FlinkPeer,
  tables: readonly StreamTable[],
  commit: (round: number, tables: readonly StreamTable[]) => Promise<Map<string, string>>,
): Promise<Map<string, { streamed: string[]; committed: string[] }>> {
  const catalogs = Object.fromEntries(tables.map((t) => [t.catalog, `file://${t.wh}`]));
  const out = new Map(tables.map((t) => [t.key, { streamed: [] as string[], committed: [] as string[] }]));
  const streams: number[] = [];
  try {
    for (let i = 0; i < tables.length; i += SOURCES_PER_QUERY) {
      const sql = tables
        .slice(i, i + SOURCES_PER_QUERY)
        .map((t) => `SELECT ${quote(t.key)} AS k, ${ROW_TEXT_SQL} AS r FROM \`${t.catalog}\`.\`interop\`.\`${t.table}\` /*+ OPTIONS('scan.mode'='latest') */`)
        .join('\nUNION ALL\n');
      streams.push(await peer.streamStart(sql, catalogs));
    }
    const arrived = (t: StreamTable): boolean => {
      const o = out.get(t.key)!;
      return o.streamed.includes(o.committed[o.committed.length - 1] ?? '\0');
    };
    for (let round = 0; round < STREAM_ROUNDS; round++) {
      const pending = tables.filter((t) => !arrived(t));
      if (pending.length === 0) break;
      for (const [k, r] of await commit(round, pending)) out.get(k)!.committed.push(r);
      const until = Date.now() + STREAM_ROUND_MS;
      while (pending.some((t) => !arrived(t)) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 1000));
        for (const o of out.values()) o.streamed = [];
        for (const s of streams) {
          const { rows, error } = await peer.streamPoll(s);
          if (error !== null) throw new Error(`the Flink streaming job ended: ${error}`);
          for (const row of rows) out.get(String(row.k))?.streamed.push(String(row.r));
        }
      }
    }
  } finally {
    for (const s of streams) await peer.streamStop(s).catch(() => undefined);
  }
  for (const o of out.values()) o.streamed.sort();
  return out;
}
