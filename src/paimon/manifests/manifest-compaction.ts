/**
 * Full manifest compaction as `compact_manifest` runs it: Paimon's
 * `FileStoreCommitImpl.compactManifest` calls `ManifestFileMerger.merge` on the latest snapshot's
 * data manifests with `manifest.merge-min-count` = 1 and `manifest.full-compaction-threshold-size`
 * = 1 byte (paimon-core 1.4.2 and 2.0.0, `manifest-sort.enabled` off, its default):
 *
 * tryFullCompaction: a manifest must change when it has DELETE entries or is smaller than
 *   `manifest.target-file-size`. If none must change, or at most one manifest is left to merge,
 *   fall back to minor compaction. Otherwise every manifest still to merge is read (ADD entries
 *   only); one holding an entry that some DELETE names, or that must change, is rewritten without
 *   those entries into new rolling manifests; the others are kept as they are.
 * tryMinorCompaction: runs of manifests whose sizes reach the target size, and the trailing run,
 *   are merged (ADD/DELETE pairs cancel) when they hold more than one manifest.
 *
 * When the table has DELETE entries, Java also keeps without reading the large manifests whose
 * partition statistics exclude every partition with a DELETE (a read-saving filter). Here those
 * manifests are read and kept too: the same live entries result, only the order of kept large
 * manifests in the list may differ. Entries to rewrite are held in memory, as one rolling write.
 */
import { fileIdentifier, mergeEntries } from '../spec/file-entry.js';
import type { ManifestEntry } from '../spec/manifest-entry.js';
import type { ManifestFileMeta } from '../spec/manifest-file-meta.js';

/** One piece of the compacted list, in list order: a manifest kept as it is, or entries written anew. */
export type CompactionItem = { kind: 'keep'; file: ManifestFileMeta } | { kind: 'write'; from: ManifestFileMeta[]; entries: ManifestEntry[] };

export interface ManifestCompactionPlan {
  mode: 'full' | 'minor';
  items: CompactionItem[];
  /** True when nothing would be rewritten (Java then commits nothing). */
  unchanged: boolean;
  manifestsBefore: number;
  /** Manifests read and replaced by new ones. */
  manifestsRewritten: number;
  /** Entries of the rewritten manifests that the compaction drops (deleted files and their DELETEs). */
  entriesDropped: number;
}

export type ReadManifest = (file: ManifestFileMeta) => Promise<ManifestEntry[]>;

function plan(mode: 'full' | 'minor', input: readonly ManifestFileMeta[], items: CompactionItem[], readEntries: number): ManifestCompactionPlan {
  const writes = items.filter((i): i is Extract<CompactionItem, { kind: 'write' }> => i.kind === 'write');
  const rewritten = writes.reduce((n, w) => n + w.from.length, 0);
  const kept = writes.reduce((n, w) => n + w.entries.length, 0);
  return { mode, items, unchanged: rewritten === 0, manifestsBefore: input.length, manifestsRewritten: rewritten, entriesDropped: readEntries - kept };
}

/** ManifestFileMerger.tryFullCompaction with a size trigger of 1 byte; null when Java falls back to minor compaction. */
async function tryFullCompaction(input: readonly ManifestFileMeta[], read: ReadManifest, targetSize: bigint): Promise<ManifestCompactionPlan | null> {
  const mustChange = (f: ManifestFileMeta): boolean => f.numDeletedFiles > 0n || f.fileSize < targetSize;
  if (!input.some(mustChange)) return null;
  const entries = new Map<string, ManifestEntry[]>();
  const deleted = new Set<string>();
  for (const f of input) {
    const es = await read(f);
    entries.set(f.fileName, es);
    for (const e of es) if (e.kind === 'DELETE') deleted.add(fileIdentifier(e));
  }
  const keepUnread: ManifestFileMeta[] = [];
  // Without DELETEs Java's partition filter is ALWAYS_FALSE: a manifest that need not change stays.
  const toBeMerged = deleted.size === 0 ? input.filter((f) => mustChange(f) || (keepUnread.push(f), false)) : [...input];
  if (toBeMerged.length <= 1) return null;
  const items: CompactionItem[] = keepUnread.map((file) => ({ kind: 'keep', file }));
  const rewrite: ManifestEntry[] = [];
  const from: ManifestFileMeta[] = [];
  let readCount = 0;
  for (const f of toBeMerged) {
    let requireChange = mustChange(f);
    const adds: ManifestEntry[] = [];
    for (const e of entries.get(f.fileName) ?? []) {
      if (e.kind !== 'ADD') continue;
      if (deleted.has(fileIdentifier(e))) requireChange = true;
      else adds.push(e);
    }
    if (requireChange) {
      from.push(f);
      rewrite.push(...adds);
      readCount += entries.get(f.fileName)?.length ?? 0;
    } else items.push({ kind: 'keep', file: f });
  }
  items.push({ kind: 'write', from, entries: rewrite });
  return plan('full', input, items, readCount);
}

/** ManifestFileMerger.tryMinorCompaction with a minimum count of 1. */
async function tryMinorCompaction(input: readonly ManifestFileMeta[], read: ReadManifest, targetSize: bigint): Promise<ManifestCompactionPlan> {
  const items: CompactionItem[] = [];
  let readCount = 0;
  let candidates: ManifestFileMeta[] = [];
  let total = 0n;
  const flush = async (): Promise<void> => {
    if (candidates.length === 1) items.push({ kind: 'keep', file: candidates[0] });
    else if (candidates.length > 1) {
      const merged = new Map<string, ManifestEntry>();
      for (const f of candidates) {
        const es = await read(f);
        readCount += es.length;
        mergeEntries(es, merged);
      }
      items.push({ kind: 'write', from: candidates, entries: [...merged.values()] });
    }
    candidates = [];
    total = 0n;
  };
  for (const f of input) {
    total += f.fileSize;
    candidates.push(f);
    if (total >= targetSize) await flush();
  }
  await flush();
  return plan('minor', input, items, readCount);
}

/** The compaction of `input` (the latest snapshot's base then delta manifests), read but not written. */
export async function planManifestCompaction(input: readonly ManifestFileMeta[], read: ReadManifest, targetSize: bigint): Promise<ManifestCompactionPlan> {
  return (await tryFullCompaction(input, read, targetSize)) ?? tryMinorCompaction(input, read, targetSize);
}

/**
 * The new manifest list of a plan: kept manifests as they are, each `write` item written as new
 * (rolling) manifests through `write`, in list order. Null when the plan is unchanged.
 */
export async function writeManifestCompaction(
  p: ManifestCompactionPlan,
  write: (entries: readonly ManifestEntry[]) => Promise<ManifestFileMeta[]>,
): Promise<ManifestFileMeta[] | null> {
  if (p.unchanged) return null;
  const out: ManifestFileMeta[] = [];
  for (const item of p.items) {
    if (item.kind === 'keep') out.push(item.file);
    else if (item.entries.length > 0) out.push(...(await write(item.entries)));
  }
  return out;
}
