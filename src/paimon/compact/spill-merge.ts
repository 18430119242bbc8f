/**
 * The memory budget of a compaction and the merge of a section within it.
 *
 * A compaction's budget (`memoryBudgetBytes`) is split once (`compactionMemory`): a reserve for
 * the runtime itself (node, V8's young generation, DuckDB's code), the DuckDB instance the
 * compaction writes its files with (`openDataEngine`: its memory limit bounds the buffered rows
 * of the files being written, beyond it DuckDB spills), and equal shares for the buckets that run
 * at once. Within a bucket's share (`planSectionMerge`), open Parquet scans get most: DuckDB holds
 * about one row group (compressed column chunks) per open file, so the number of sorted runs
 * merged at once (the fan-in) is the readers' share over the largest row-group estimate of the
 * section's files; JS record batches get the rest.
 *
 * When a section has more sorted runs than the fan-in, contiguous groups of runs are first merged
 * without the merge function into temporary spill files (spill-file.ts; what Paimon's
 * `sort-spill-threshold` does with its external sort buffer), choosing the cheapest windows and
 * only as many as needed, until the remaining runs fit; the final pass merges them with the
 * merge function. Raw records keep their merge order (key, sequence.field, sequence number; equal
 * records in run order, which contiguous groups preserve), so the merge function sees exactly the
 * records, in exactly the order, it would have seen in one pass.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { DataFieldSpec } from '../data/field-type.js';
import type { KeyValue } from '../data/internal-row.js';
import type { MergeFunction } from './merge-function.js';
import { mergeRuns, type MergeOrder } from './sorted-run-merge.js';
import { readSpill, SpillWriter } from './spill-file.js';

const MiB = 1 << 20;

/** Part of a bucket's share for its open Parquet scans (the rest: JS batches). */
const READERS_FRACTION = 0.55;

export interface CompactionMemory {
  /** Memory for the files being written (DuckDB temporary tables, spilled beyond it). */
  engineLimitBytes: number;
  /**
   * Memory limit of the compaction's own DuckDB instance: the writers' part and the open scans of
   * every bucket at once (DuckDB's Parquet scans allocate through its buffer manager too, so the
   * limit must hold them; beyond it DuckDB evicts the writers' buffered rows to disk).
   */
  duckdbLimitBytes: number;
  /** Share of each bucket running at once: open scans and JS batches. */
  perBucketBytes: number;
  /** Buckets compacted at once: as asked, or fewer when the budget cannot give each a useful share. */
  concurrency: number;
}

/** Below this share a further bucket at once is not worth it: fewer buckets run at once instead. */
const MIN_BUCKET_SHARE = 96 * MiB;

/**
 * Splits a compaction's budget: runtime reserve, the writers' DuckDB limit, bucket shares. Runs
 * fewer buckets at once than asked when each would get less than MIN_BUCKET_SHARE (at 512 MiB:
 * one), so a small budget is kept rather than starved into DuckDB out-of-memory errors.
 */
export function compactionMemory(budgetBytes: number, concurrency: number): CompactionMemory {
  const budget = Math.max(1, budgetBytes);
  let c = Math.max(1, Math.floor(concurrency));
  for (;;) {
    // The process itself (~110 MiB RSS at start: node, V8's young generation, DuckDB), and what
    // no share accounts for. Measured with bench/compact.ts (1 GiB, 4 x 40 files of ~6.5 MiB,
    // node's default heap): with a 160 MiB reserve the peak RSS stood ~50 MiB above the budget
    // (560 MiB at 512, 457 at 400), and runs of one setting differ by up to 50 MiB (native memory
    // freed late: DuckDB's chunks die with their JS wrappers, its Parquet writer allocates
    // outside its limit, V8 keeps committed heap). With 320 MiB: 468-489 MiB at 512.
    const reserve = Math.min(320 * MiB + 96 * MiB * (c - 1), Math.floor(budget * 0.75));
    const work = budget - reserve;
    const engineLimitBytes = Math.max(8 * MiB, Math.floor(work / 4));
    const perBucketBytes = Math.max(1, Math.floor((work - Math.min(work, engineLimitBytes)) / c));
    if (c > 1 && perBucketBytes < MIN_BUCKET_SHARE) {
      c--;
      continue;
    }
    const duckdbLimitBytes = engineLimitBytes + Math.floor(perBucketBytes * READERS_FRACTION) * c;
    return { engineLimitBytes, duckdbLimitBytes, perBucketBytes, concurrency: c };
  }
}

export interface SectionMergePlan {
  /** Sorted runs merged at once (>= 2). */
  fanIn: number;
  /** Records per batch of each run (and of the merged output). */
  batchRows: number;
  /** Estimated memory of one open run (its Parquet scan). */
  perRunBytes: number;
}

/** Memory of one open Parquet scan: about one row group (at most the file, at most the block size) plus DuckDB's chunk. */
export function openScanBytes(file: Pick<DataFileMeta, 'fileSize'>, blockSizeBytes: number): number {
  return Math.ceil(Math.min(Number(file.fileSize), blockSizeBytes) * 1.25) + 2 * MiB;
}

/** The fan-in and batch size of a section's merge within a bucket's share of the budget. */
export function planSectionMerge(runs: ReadonlyArray<ReadonlyArray<Pick<DataFileMeta, 'fileSize' | 'rowCount'>>>, shareBytes: number, blockSizeBytes: number): SectionMergePlan {
  let perRunBytes = 2 * MiB;
  let rowBytes = 64;
  for (const run of runs) {
    for (const f of run) {
      perRunBytes = Math.max(perRunBytes, openScanBytes(f, blockSizeBytes));
      // In JS a record takes several times its encoded size (objects, strings as UTF-16 at worst).
      if (f.rowCount > 0n) rowBytes = Math.max(rowBytes, Math.ceil(Number(f.fileSize) / Number(f.rowCount)) * 8);
    }
  }
  const readers = Math.floor(shareBytes * READERS_FRACTION);
  const fanIn = Math.max(2, Math.floor(readers / perRunBytes));
  const open = Math.min(fanIn, Math.max(1, runs.length));
  // JS share: live batches of every open run plus the output batch, with room for garbage.
  const js = shareBytes - readers;
  const batchRows = Math.max(16, Math.min(256, Math.floor(js / 4 / ((open + 1) * rowBytes))));
  return { fanIn, batchRows, perRunBytes };
}

/** A sorted run to merge: data files (read through `readFiles`) or a spill file of this compaction. */
type Source = { kind: 'files'; files: readonly DataFileMeta[]; bytes: number } | { kind: 'spill'; path: string; bytes: number };

export interface SectionMergeOptions {
  runs: ReadonlyArray<readonly DataFileMeta[]>;
  /** Reads one run of data files as KeyValue batches (evolved to the target schema, vectors applied). */
  readFiles: (files: readonly DataFileMeta[], batchRows: number) => AsyncGenerator<KeyValue[]>;
  order: MergeOrder;
  mergeFunction: MergeFunction;
  /**
   * The merge function of the spill passes, or null to spill raw records. Only for engines whose
   * merge of a contiguous group of runs, merged again later, equals one merge of all records
   * (deduplicate keeps the last record in merge order, first-row the first): Paimon's own
   * intermediate compactions merge them so too. Retract records are kept (dropDelete is false).
   */
  spillMergeFunction?: MergeFunction | null;
  dropDelete: boolean;
  plan: SectionMergePlan;
  /** Directory for spill files (created by the caller, removed by it at the end of the compaction). */
  spillDir: string;
  /** Target schema fields and trimmed key positions, to read spill files back. */
  fields: readonly DataFieldSpec[];
  keyIndexes: readonly number[];
  /** Input records of the section (each counted once, spilled or not). */
  stats: { read: bigint };
  spillStats?: { files: number; records: bigint; bytes: bigint };
  signal?: AbortSignal;
}

/**
 * The merged records of a section (the merge function applied), reading at most `plan.fanIn`
 * runs at once; spill files made on the way are deleted when they have been read and, at the
 * latest, when this generator ends (normally, by an error or by `return`).
 */
export async function* mergeSection(o: SectionMergeOptions): AsyncGenerator<KeyValue[]> {
  const { fanIn, batchRows } = o.plan;
  let sources: Source[] = o.runs.map((files) => ({ kind: 'files', files, bytes: files.reduce((s, f) => s + Number(f.fileSize), 0) }));
  const made = new Set<string>();
  let spilledNet = 0n;
  const open = (s: Source): AsyncGenerator<KeyValue[]> =>
    s.kind === 'files' ? o.readFiles(s.files, batchRows) : readSpill(s.path, o.fields, o.keyIndexes, o.signal);
  try {
    let need = sources.length - fanIn;
    while (need > 0) {
      o.signal?.throwIfAborted();
      const k = Math.min(fanIn, need + 1);
      // The contiguous window of k runs with the fewest bytes (contiguous: equal records keep run order).
      let best = 0;
      let bestBytes = Infinity;
      for (let i = 0; i + k <= sources.length; i++) {
        let b = 0;
        for (let j = i; j < i + k; j++) b += sources[j].bytes;
        if (b < bestBytes) {
          bestBytes = b;
          best = i;
        }
      }
      const group = sources.slice(best, best + k);
      const path = join(o.spillDir, `spill-${randomUUID()}.bin`);
      made.add(path);
      const w = await SpillWriter.create(path);
      try {
        const raw = { read: 0n };
        for await (const batch of mergeRuns(group.map(open), o.order, o.spillMergeFunction ?? null, { dropDelete: false, stats: raw, signal: o.signal, outBatch: batchRows })) {
          await w.write(batch);
        }
        await w.close();
        // Records read here minus those written (each is read again, once, by a later pass).
        spilledNet += raw.read - BigInt(w.records);
      } catch (e) {
        await w.discard().catch(() => undefined);
        throw e;
      }
      for (const s of group) {
        if (s.kind === 'spill') {
          await rm(s.path, { force: true });
          made.delete(s.path);
        }
      }
      if (o.spillStats) {
        o.spillStats.files++;
        o.spillStats.records += BigInt(w.records);
        o.spillStats.bytes += BigInt(w.bytes);
      }
      sources = [...sources.slice(0, best), { kind: 'spill', path, bytes: w.bytes }, ...sources.slice(best + k)];
      need -= k - 1;
    }
    yield* mergeRuns(sources.map(open), o.order, o.mergeFunction, { dropDelete: o.dropDelete, stats: o.stats, signal: o.signal, outBatch: batchRows });
    o.stats.read += spilledNet;
  } finally {
    await Promise.all([...made].map((p) => rm(p, { force: true })));
  }
}
