/**
 * What the compaction interop tests read from a PaimonTool dump: the live data files of the
 * latest snapshot (base + delta manifest lists, entries applied in order, identified as Paimon's
 * FileEntry identifies them: partition, bucket, level, file name) and their layout per
 * partition/bucket/level.
 */
import type { JsonObj } from './peers.js';

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
