/**
 * Minor compaction picking of a primary-key bucket (`UniversalCompaction.pick`, RocksDB-style
 * universal compaction), in Paimon's order: size amplification, then size ratio, then the number
 * of sorted runs. Not modelled: the optimized full-compaction interval
 * (`compaction.optimization-interval`), `compaction.total-size-threshold` and lookup-specific
 * level-0 forcing (lookup tables are refused before this runs).
 */
import type { CompactUnit, LevelSortedRun } from './interval-partition.js';

export interface UniversalOptions {
  /** `compaction.max-size-amplification-percent` (200). */
  maxSizeAmp: number;
  /** `compaction.size-ratio` (1). */
  sizeRatio: number;
  /** `num-sorted-run.compaction-trigger` (5). */
  numRunCompactionTrigger: number;
}

export function universalOptions(options: Readonly<Record<string, string>>): UniversalOptions {
  const int = (k: string, d: number): number => {
    const v = options[k];
    if (v === undefined) return d;
    const n = Number(v.trim());
    if (!Number.isInteger(n)) throw new Error(`option ${k} must be an integer, got '${v}'`);
    return n;
  };
  return {
    maxSizeAmp: int('compaction.max-size-amplification-percent', 200),
    sizeRatio: int('compaction.size-ratio', 1),
    numRunCompactionTrigger: int('num-sorted-run.compaction-trigger', 5),
  };
}

const runSize = (r: LevelSortedRun): bigint => r.files.reduce((s, f) => s + f.fileSize, 0n);

export function pickUniversal(numLevels: number, runs: readonly LevelSortedRun[], o: UniversalOptions): CompactUnit | null {
  const maxLevel = numLevels - 1;
  return pickForSizeAmp(maxLevel, runs, o) ?? pickForSizeRatio(maxLevel, runs, o) ?? pickForFileNum(maxLevel, runs, o);
}

function pickForSizeAmp(maxLevel: number, runs: readonly LevelSortedRun[], o: UniversalOptions): CompactUnit | null {
  if (runs.length < o.numRunCompactionTrigger) return null;
  let candidateSize = 0n;
  for (let i = 0; i < runs.length - 1; i++) candidateSize += runSize(runs[i]);
  const earliestRunSize = runSize(runs[runs.length - 1]);
  if (candidateSize * 100n > BigInt(o.maxSizeAmp) * earliestRunSize) return { outputLevel: maxLevel, files: runs.flatMap((r) => r.files) };
  return null;
}

function pickForSizeRatio(maxLevel: number, runs: readonly LevelSortedRun[], o: UniversalOptions, candidateCount = 1, forcePick = false): CompactUnit | null {
  if (!forcePick && runs.length < o.numRunCompactionTrigger) return null;
  let candidateSize = 0n;
  for (let i = 0; i < candidateCount; i++) candidateSize += runSize(runs[i]);
  let count = candidateCount;
  for (let i = candidateCount; i < runs.length; i++) {
    const next = runs[i];
    if ((candidateSize * BigInt(100 + o.sizeRatio)) / 100n < runSize(next)) break;
    candidateSize += runSize(next);
    count++;
  }
  if (forcePick || count > 1) return createUnit(runs, maxLevel, count);
  return null;
}

function pickForFileNum(maxLevel: number, runs: readonly LevelSortedRun[], o: UniversalOptions): CompactUnit | null {
  if (runs.length > o.numRunCompactionTrigger) {
    return pickForSizeRatio(maxLevel, runs, o, runs.length - o.numRunCompactionTrigger + 1, true);
  }
  return null;
}

export function createUnit(runs: readonly LevelSortedRun[], maxLevel: number, runCount: number): CompactUnit {
  let outputLevel: number;
  if (runCount === runs.length) outputLevel = maxLevel;
  else outputLevel = Math.max(0, runs[runCount].level - 1);
  if (outputLevel === 0) {
    // Level 0 is never an output: extend to the next non-level-0 run.
    for (let i = runCount; i < runs.length; i++) {
      const next = runs[i];
      runCount++;
      if (next.level !== 0) {
        outputLevel = next.level;
        break;
      }
    }
  }
  if (runCount === runs.length) outputLevel = maxLevel;
  return { outputLevel, files: runs.slice(0, runCount).flatMap((r) => r.files) };
}
