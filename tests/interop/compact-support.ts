/**
 * What the compaction interop tests read from a PaimonTool dump: the live data files of the
 * latest snapshot (base + delta manifest lists, entries applied in order, identified as Paimon's
 * FileEntry identifies them: partition, bucket, level, file name) and their layout per
 * partition/bucket/level; and what the deletion-vector tests share (Java's vectors as DvTool reads
 * them, one table spec, the rows' canonical form).
 */
import { java, parseJson, type Json, type JsonObj, type PaimonJavaVersion, type Row, type TableSpec } from './peers.js';

export interface LiveFile {
  fileName: string;
  /** The partition values as JSON, e.g. `["a"]`. */
  partition: string;
  bucket: number;
  level: number;
  rowCount: number;
  /** The DataFileMeta as the dump prints it. */
  meta: JsonObj;
}

/** The live data files of the latest snapshot in a PaimonTool dump. */
export function liveFiles(dump: JsonObj): LiveFile[] {
  const manifests = dump.manifests as Record<string, JsonObj[]>;
  const snapshots = dump.snapshots as JsonObj[];
  const latest = snapshots[snapshots.length - 1];
  const lists = dump.manifestLists as Record<string, { manifests: Array<{ fileName: string }> }>;
  const live = new Map<string, LiveFile>();
  for (const l of [latest.baseManifestList, latest.deltaManifestList]) {
    for (const m of lists[String(l)]?.manifests ?? []) {
      for (const e of manifests[m.fileName] ?? []) {
        const f = e.file as JsonObj;
        const partition = JSON.stringify((e.partition as JsonObj).values);
        const key = `${partition}/${String(e.bucket)}/${String(f.level)}/${String(f.fileName)}`;
        if (e.kind === 'ADD') {
          live.set(key, { fileName: String(f.fileName), partition, bucket: Number(e.bucket), level: Number(f.level), rowCount: Number(f.rowCount), meta: f });
        } else live.delete(key);
      }
    }
  }
  return [...live.values()];
}

/** Number of files per partition/bucket/level. */
export function levelHistogram(files: readonly LiveFile[]): Record<string, number> {
  const h: Record<string, number> = {};
  for (const f of files) {
    const k = `${f.partition}/b${f.bucket}/L${f.level}`;
    h[k] = (h[k] ?? 0) + 1;
  }
  return h;
}

/** Rows as sorted canonical strings (bigints as decimal), for order-independent comparison. */
export const canonRows = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

/** One deletion vector as Paimon Java reads it from the latest snapshot (DvTool read-dvs). */
export interface JavaDv {
  dataFile: string;
  indexFile: string;
  bucket: number;
  cardinality: number;
  bitmap64: boolean;
  positions: number[];
}

/** The deletion vectors of `db.t` in `wh`, and vectors whose data file is no longer live (stale). */
export async function javaDvs(v: PaimonJavaVersion, wh: string): Promise<{ snapshotId: number; dvs: JavaDv[]; stale: string[] }> {
  const r = await java(v).runMain('DvTool', ['read-dvs', wh, 'db', 't'], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`DvTool read-dvs failed: ${r.stderr}`);
  const j = parseJson(r.stdout.trim()) as JsonObj;
  return {
    snapshotId: Number(j.snapshotId),
    dvs: (j.dvs as JsonObj[]).map((d) => ({
      dataFile: String(d.dataFile),
      indexFile: String(d.indexFile),
      bucket: Number(d.bucket),
      cardinality: Number(d.cardinality),
      bitmap64: d.bitmap64 === true,
      positions: (d.positions as Json[]).map(Number),
    })),
    stale: (j.stale as JsonObj[]).map((d) => String(d.dataFile)),
  };
}

/** A deterministic pseudo-random string for a row id (`times` copies), so Parquet pages are real. */
export const padOf = (id: number, times: number): string => ((Math.imul(id + 1, 2654435761) >>> 0).toString(16) + (Math.imul(id + 7, 40503) >>> 0).toString(36)).repeat(times);

/**
 * A one-bucket primary-key table with deletion vectors and a small target file size: Java's full
 * compaction rolls its output (checked every 1000 rows), so the bucket's max level holds several
 * files with disjoint key ranges.
 */
export const LARGE_DV_SPEC: TableSpec = {
  fields: [
    { name: 'id', type: 'INT NOT NULL' },
    { name: 'name', type: 'STRING' },
    { name: 'amount', type: 'BIGINT' },
    { name: 'pad', type: 'STRING' },
  ],
  primaryKeys: ['id'],
  partitionKeys: [],
  options: { bucket: '1', 'deletion-vectors.enabled': 'true', 'target-file-size': '16 kb' },
};

/** Deletes (-D) of the 20 ids from `from` in LARGE_DV_SPEC's table. */
export const largeDvDeletes = (from: number): Row[] => Array.from({ length: 20 }, (_, i) => ({ id: from + i, name: null, amount: null, pad: null, _rowKind: '-D' }));

/** DataFileMetas (as Java lists them) in an order that does not depend on file names. */
export function sortedMetas(fs: JsonObj[]): JsonObj[] {
  return [...fs].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : JSON.stringify(x) > JSON.stringify(y) ? 1 : 0));
}

/** A DataFileMeta without what differs between two writers of the same rows (name, size, time). */
export function comparableMeta(f: JsonObj): JsonObj {
  const { fileName: _n, fileSize: _s, creationTime: _c, creationTimeEpochMillis: _e, ...rest } = f;
  void _n; void _s; void _c; void _e;
  return rest;
}
