/**
 * Planning of a primary-key bucket's compaction (pure; over DataFileMeta only):
 *  - `levelSortedRuns`: the bucket's sorted runs as `Levels.levelSortedRuns` orders them: each
 *    level-0 file is its own run (newest first, by max sequence number), then one run per
 *    non-empty level >= 1;
 *  - `pickFullCompaction` (`CompactStrategy.pickFullCompaction`): when the bucket is a single run
 *    already at the max level, only its force-rewritten files or files with a deletion vector,
 *    each rewritten on its own (nothing when there are none); else every run to the max level;
 *  - `intervalPartition` (`IntervalPartition`): files sorted by (minKey, maxKey) split into
 *    sections whose key ranges do not overlap each other; each section packed into as few
 *    sorted runs as possible (a file joins the run whose last file ends before it starts);
 *  - `planSections` (`MergeTreeCompactTask.doCompact`, or `FileRewriteCompactTask` for a
 *    file-rewrite unit): which sections are rewritten (merged) and which files are upgraded
 *    (level changed only, no rewrite).
 */
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { BinaryRow } from '../spec/binary-row.js';
import type { FieldType } from '../data/field-type.js';
import { binaryFieldType } from '../data/parquet-writer.js';
import { compareNullsFirst, type Datum } from '../data/internal-row.js';

export type KeyComparator = (a: BinaryRow, b: BinaryRow) => number;

/** Compares serialized keys field by field in the key types' order (nulls first). */
export function binaryKeyComparator(keyTypes: readonly FieldType[]): KeyComparator {
  const bts = keyTypes.map(binaryFieldType);
  return (a, b) => {
    for (let i = 0; i < keyTypes.length; i++) {
      const c = compareNullsFirst(keyTypes[i], a.get(i, bts[i]) as Datum, b.get(i, bts[i]) as Datum);
      if (c !== 0) return c;
    }
    return 0;
  };
}

export interface LevelSortedRun {
  level: number;
  /** Files of the run, ordered by min key (level >= 1) or the single level-0 file. */
  files: DataFileMeta[];
}

export function levelSortedRuns(files: readonly DataFileMeta[], cmp: KeyComparator): LevelSortedRun[] {
  const level0 = files.filter((f) => f.level === 0).sort((a, b) => {
    // Levels.level0 is ordered by max sequence number descending, then min sequence, then name.
    if (a.maxSequenceNumber !== b.maxSequenceNumber) return a.maxSequenceNumber > b.maxSequenceNumber ? -1 : 1;
    if (a.minSequenceNumber !== b.minSequenceNumber) return a.minSequenceNumber < b.minSequenceNumber ? -1 : 1;
    return a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0;
  });
  const runs: LevelSortedRun[] = level0.map((f) => ({ level: 0, files: [f] }));
  const levels = [...new Set(files.filter((f) => f.level > 0).map((f) => f.level))].sort((a, b) => a - b);
  for (const l of levels) {
    runs.push({ level: l, files: files.filter((f) => f.level === l).sort((a, b) => cmp(a.minKey, b.minKey)) });
  }
  return runs;
}

export interface CompactUnit {
  outputLevel: number;
  files: DataFileMeta[];
  /** `CompactUnit.fileRewrite`: each file is rewritten on its own (`FileRewriteCompactTask`), none merged with another. */
  fileRewrite?: boolean;
}

/**
 * `CompactStrategy.pickFullCompaction` (record-level expiry aside: compact refuses such tables).
 * When the bucket is a single run at the max level, only its files that are force-rewritten
 * (`compaction.force-rewrite-all-files`) or have a deletion vector (`hasVector`, the bucket's
 * `BucketedDvMaintainer`) are picked, each to be rewritten on its own; none picked: nothing to do.
 * Otherwise every run goes to the max level.
 */
export function pickFullCompaction(
  numLevels: number,
  runs: readonly LevelSortedRun[],
  forceRewriteAllFiles = false,
  hasVector?: (fileName: string) => boolean,
): CompactUnit | null {
  const maxLevel = numLevels - 1;
  if (runs.length === 0) return null;
  if (runs.length === 1 && runs[0].level === maxLevel) {
    const picked = runs[0].files.filter((f) => forceRewriteAllFiles || (hasVector?.(f.fileName) ?? false));
    return picked.length === 0 ? null : { outputLevel: maxLevel, files: picked, fileRewrite: true };
  }
  return { outputLevel: maxLevel, files: runs.flatMap((r) => r.files) };
}

/** Sections of sorted runs (each run: files in key order, non-overlapping). */
export function intervalPartition(files: readonly DataFileMeta[], cmp: KeyComparator): DataFileMeta[][][] {
  const sorted = [...files].sort((a, b) => cmp(a.minKey, b.minKey) || cmp(a.maxKey, b.maxKey));
  const sections: DataFileMeta[][][] = [];
  let current: DataFileMeta[] = [];
  let bound: BinaryRow | null = null;
  const flush = (): void => {
    if (current.length > 0) sections.push(packRuns(current, cmp));
    current = [];
  };
  for (const f of sorted) {
    if (bound !== null && cmp(f.minKey, bound) > 0) {
      flush();
      bound = null;
    }
    current.push(f);
    if (bound === null || cmp(f.maxKey, bound) > 0) bound = f.maxKey;
  }
  flush();
  return sections;
}

/** Files of one section (sorted by min key) packed into sorted runs, as IntervalPartition does with its heap. */
function packRuns(files: readonly DataFileMeta[], cmp: KeyComparator): DataFileMeta[][] {
  const runs: DataFileMeta[][] = [];
  for (const f of files) {
    // The run whose last file has the smallest max key (Java's priority queue top).
    let best = -1;
    for (let i = 0; i < runs.length; i++) {
      if (best < 0 || cmp(runs[i][runs[i].length - 1].maxKey, runs[best][runs[best].length - 1].maxKey) < 0) best = i;
    }
    if (best >= 0 && cmp(f.minKey, runs[best][runs[best].length - 1].maxKey) > 0) runs[best].push(f);
    else runs.push([f]);
  }
  return runs;
}

export type SectionStep =
  | { kind: 'rewrite'; sections: DataFileMeta[][][] }
  | { kind: 'upgrade'; file: DataFileMeta }
  | { kind: 'rewrite-file'; file: DataFileMeta };

/**
 * `MergeTreeCompactTask.doCompact`: adjacent small or overlapping sections are merged together;
 * a large non-overlapping file is upgraded (its level changed; nothing when it is at the output
 * level already), unless `MergeTreeCompactTask.upgrade` rewrites it on its own: the output is the
 * max level and the file may hold retract rows (deleteRowCount > 0, or unknown: files written
 * before the count existed), or everything is force-rewritten
 * (`compaction.force-rewrite-all-files`). The rule holds for a file already at the output level
 * too (1.4.2 and 2.0.0 alike). Java's third reason, files with records past
 * `record-level.expire-time`, does not arise: compact refuses such tables.
 */
export function planSections(
  unit: CompactUnit,
  cmp: KeyComparator,
  opts: { minFileSize: number; maxLevel: number; forceRewriteAllFiles?: boolean },
): SectionStep[] {
  // MergeTreeCompactManager hands a file-rewrite unit to FileRewriteCompactTask: one rewrite per file.
  if (unit.fileRewrite) return unit.files.map((file) => ({ kind: 'rewrite-file', file }));
  const steps: SectionStep[] = [];
  let candidate: DataFileMeta[][][] = [];
  const upgrade = (file: DataFileMeta): void => {
    const mayHoldDeletes = file.deleteRowCount === null || file.deleteRowCount > 0n;
    if ((unit.outputLevel === opts.maxLevel && mayHoldDeletes) || opts.forceRewriteAllFiles) {
      steps.push({ kind: 'rewrite-file', file });
    } else if (file.level !== unit.outputLevel) {
      steps.push({ kind: 'upgrade', file });
    }
  };
  const rewrite = (): void => {
    if (candidate.length === 0) return;
    if (candidate.length === 1 && candidate[0].length <= 1) {
      if (candidate[0].length === 1) for (const f of candidate[0][0]) upgrade(f);
      candidate = [];
      return;
    }
    steps.push({ kind: 'rewrite', sections: candidate });
    candidate = [];
  };
  for (const section of intervalPartition(unit.files, cmp)) {
    if (section.length > 1) {
      candidate.push(section);
      continue;
    }
    for (const file of section[0]) {
      if (Number(file.fileSize) < opts.minFileSize) candidate.push([[file]]);
      else {
        rewrite();
        upgrade(file);
      }
    }
  }
  rewrite();
  return steps;
}
