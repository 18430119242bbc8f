/**
 * The candidate files of remove_orphan_files, held compactly, and their anti-join with the
 * names that the table's metadata reaches.
 *
 * In memory (up to `threshold` candidates): each directory string once (DirTable), and per
 * candidate its name, a directory index, its size and its area in parallel typed arrays
 * (about 100 bytes a file with the name, against ~2 KB for a status object per file). Names are
 * matched through one Map from name to the first candidate of that name (later ones of the same
 * name are chained), and a mark byte per candidate.
 *
 * Past `threshold` the store spills: every candidate (those in memory first) goes to one of
 * SPILL_FANOUT temp files by the hash of its name, and the reachable names are written to the
 * same partitions by the same hash instead of being marked. `match` then takes one partition at
 * a time: its candidates are loaded into memory (a partition still above the threshold is split
 * again with a new hash seed), its reachable names are streamed past them, the unmarked ones go
 * to the output store. Memory therefore stays near `threshold` candidates whatever the count;
 * the directory table grows with the number of directories, not files.
 *
 * Matching is by file name, as Paimon's OrphanFilesClean; candidates in a snapshot/ or changelog/
 * directory (failed atomic-write temp files) are never matched: they are orphans by construction.
 */
import { rmSync } from 'node:fs';
import { escapeField, PartitionedWriter, readLines, unescapeField, type SpillSpace } from './orphan-spill.js';

/** Where a candidate was found; the index is what the store keeps. */
export const CANDIDATE_AREAS = ['data', 'manifest', 'index', 'statistics', 'snapshot_dir', 'changelog_dir'] as const;
export type CandidateArea = (typeof CANDIDATE_AREAS)[number];
export const AREA_CODE: Readonly<Record<CandidateArea, number>> = {
  data: 0,
  manifest: 1,
  index: 2,
  statistics: 3,
  snapshot_dir: 4,
  changelog_dir: 5,
};
/** Areas whose files are orphans without a name lookup. */
function isTempArea(code: number): boolean {
  return code >= 4;
}

/** Re-splitting an oversized partition stops here (one name shared by more files than the threshold). */
const MAX_SPLIT_DEPTH = 4;

/** Each directory path once; candidates refer to it by index. */
export class DirTable {
  private readonly paths: string[] = [];
  private readonly index = new Map<string, number>();

  intern(dir: string): number {
    let i = this.index.get(dir);
    if (i === undefined) {
      i = this.paths.length;
      this.paths.push(dir);
      this.index.set(dir, i);
    }
    return i;
  }

  path(i: number): string {
    const p = this.paths[i];
    if (p === undefined) throw new Error(`unknown directory index ${i}`);
    return p;
  }

  get size(): number {
    return this.paths.length;
  }
}

/** One candidate, as handed out by `entries()` (transient; the store keeps the arrays). */
export interface Candidate {
  dir: number;
  name: string;
  size: number;
  area: number;
}

/** Candidates in parallel arrays, grown by doubling. */
class CandidateArrays {
  names: string[] = [];
  dirs = new Int32Array(1024);
  sizes = new Float64Array(1024);
  areas = new Uint8Array(1024);
  count = 0;

  push(dir: number, name: string, size: number, area: number): void {
    if (this.count === this.dirs.length) {
      const n = this.count * 2;
      const d = new Int32Array(n);
      d.set(this.dirs);
      this.dirs = d;
      const s = new Float64Array(n);
      s.set(this.sizes);
      this.sizes = s;
      const a = new Uint8Array(n);
      a.set(this.areas);
      this.areas = a;
    }
    this.names.push(name);
    this.dirs[this.count] = dir;
    this.sizes[this.count] = size;
    this.areas[this.count] = area;
    this.count++;
  }

  get(i: number): Candidate {
    return { dir: this.dirs[i]!, name: this.names[i]!, size: this.sizes[i]!, area: this.areas[i]! };
  }
}

/** Receives every file name the metadata reaches. */
export interface ReachableSink {
  mark(name: string): void;
  /** Names handed to `mark` (with repeats). */
  readonly marked: number;
}

/** Marks in-memory candidates by name. */
class MemoryMatcher implements ReachableSink {
  private readonly first = new Map<string, number>();
  private readonly next: Int32Array;
  readonly hit: Uint8Array;
  marked = 0;

  constructor(readonly arrays: CandidateArrays) {
    this.next = new Int32Array(arrays.count).fill(-1);
    this.hit = new Uint8Array(arrays.count);
    for (let i = arrays.count - 1; i >= 0; i--) {
      if (isTempArea(arrays.areas[i]!)) continue;
      const n = arrays.names[i]!;
      const f = this.first.get(n);
      if (f !== undefined) this.next[i] = f;
      this.first.set(n, i);
    }
  }

  mark(name: string): void {
    this.marked++;
    let i = this.first.get(name);
    while (i !== undefined && i >= 0) {
      this.hit[i] = 1;
      i = this.next[i];
    }
  }

  /** Unmarked candidates (and every temp-area one) into `out`. */
  emitUnmarked(out: CandidateStore): void {
    const a = this.arrays;
    for (let i = 0; i < a.count; i++) {
      if (this.hit[i] === 0) out.add(a.dirs[i]!, a.names[i]!, a.sizes[i]!, a.areas[i]!);
    }
  }
}

/** Reachable names routed to the partitions of a spilled store. */
class SpillSink implements ReachableSink {
  marked = 0;
  constructor(readonly writer: PartitionedWriter) {}
  mark(name: string): void {
    this.marked++;
    this.writer.write(name, escapeField(name));
  }
}

function candidateLine(dir: number, name: string, size: number, area: number): string {
  return `${dir}\t${area}\t${size}\t${escapeField(name)}`;
}

function parseCandidateLine(line: string, into: CandidateArrays): void {
  const a = line.indexOf('\t');
  const b = line.indexOf('\t', a + 1);
  const c = line.indexOf('\t', b + 1);
  if (a < 0 || b < 0 || c < 0) throw new Error(`corrupt orphan spill line: ${line.slice(0, 80)}`);
  into.push(Number(line.slice(0, a)), unescapeField(line.slice(c + 1)), Number(line.slice(b + 1, c)), Number(line.slice(a + 1, b)));
}

function* candidatesOfFile(path: string): Generator<Candidate> {
  const one = new CandidateArrays();
  for (const line of readLines(path)) {
    if (line === '') continue;
    one.count = 0;
    one.names.length = 0;
    parseCandidateLine(line, one);
    yield one.get(0);
  }
}

export interface CandidateStoreStats {
  /** Candidates held in memory at most at one time (per store or partition). */
  peakInMemory: number;
  /** Partitions matched in memory (1 when nothing spilled). */
  partitionsMatched: number;
}

/**
 * A set of candidate files: in memory up to `threshold`, then spilled. Add everything, call
 * `reachableSink()` once, feed it, then `match` into a fresh store (this one is consumed).
 */
export class CandidateStore {
  private mem: CandidateArrays | null = new CandidateArrays();
  private spill: PartitionedWriter | null = null;
  private sink: MemoryMatcher | SpillSink | null = null;
  count = 0;
  readonly stats: CandidateStoreStats = { peakInMemory: 0, partitionsMatched: 0 };

  constructor(
    private readonly space: SpillSpace,
    readonly threshold: number,
  ) {
    if (!Number.isInteger(threshold) || threshold < 1) throw new Error(`orphan memory threshold must be a positive integer, got ${threshold}`);
  }

  get spilled(): boolean {
    return this.spill !== null;
  }

  add(dir: number, name: string, size: number, area: number): void {
    if (this.sink !== null) throw new Error('CandidateStore: add after reachableSink()');
    this.count++;
    if (this.spill !== null) {
      this.spill.write(name, candidateLine(dir, name, size, area));
      return;
    }
    const mem = this.mem!;
    mem.push(dir, name, size, area);
    if (mem.count > this.stats.peakInMemory) this.stats.peakInMemory = mem.count;
    if (mem.count > this.threshold) {
      this.spill = new PartitionedWriter(this.space.newDir('candidates'), 0, this.space.fanout);
      for (let i = 0; i < mem.count; i++) {
        const n = mem.names[i]!;
        this.spill.write(n, candidateLine(mem.dirs[i]!, n, mem.sizes[i]!, mem.areas[i]!));
      }
      this.mem = null;
    }
  }

  /** Where reachable names go: marks in memory, or the spill partitions. */
  reachableSink(): ReachableSink {
    if (this.sink !== null) return this.sink;
    if (this.spill !== null) {
      this.spill.close();
      this.sink = new SpillSink(new PartitionedWriter(this.space.newDir('reachable'), 0, this.space.fanout));
    } else {
      this.sink = new MemoryMatcher(this.mem!);
    }
    return this.sink;
  }

  /**
   * Every candidate that no reachable name marked (and every temp-area one) into `out`.
   * `beforePartition` runs before each spilled partition (the caller's abort check).
   */
  match(out: CandidateStore, beforePartition?: () => void): void {
    this.reachableSink();
    const sink = this.sink!;
    if (sink instanceof MemoryMatcher) {
      sink.emitUnmarked(out);
      this.stats.partitionsMatched = 1;
      this.mem = null;
      return;
    }
    sink.writer.close();
    const cands = this.spill!;
    for (let p = 0; p < cands.fanout; p++) {
      beforePartition?.();
      const cw = cands.writers[p]!;
      this.matchPartition(cw.path, cw.lines, sink.writer.writers[p]!.path, 0, out, beforePartition);
      rmSync(cw.path, { force: true });
      rmSync(sink.writer.writers[p]!.path, { force: true });
    }
    rmSync(cands.dir, { recursive: true, force: true });
    rmSync(sink.writer.dir, { recursive: true, force: true });
  }

  private matchPartition(candPath: string, candCount: number, reachPath: string, depth: number, out: CandidateStore, before?: () => void): void {
    if (candCount === 0) return;
    if (candCount <= this.threshold || depth >= MAX_SPLIT_DEPTH) {
      const arrays = new CandidateArrays();
      for (const line of readLines(candPath)) if (line !== '') parseCandidateLine(line, arrays);
      if (arrays.count > this.stats.peakInMemory) this.stats.peakInMemory = arrays.count;
      const m = new MemoryMatcher(arrays);
      for (const line of readLines(reachPath)) if (line !== '') m.mark(unescapeField(line));
      m.emitUnmarked(out);
      this.stats.partitionsMatched++;
      return;
    }
    // Still too big: split both sides again with the next seed.
    const seed = depth + 1;
    const subC = new PartitionedWriter(this.space.newDir('split'), seed, this.space.fanout);
    for (const line of readLines(candPath)) {
      if (line === '') continue;
      subC.write(unescapeField(line.slice(nthTab(line, 3) + 1)), line);
    }
    subC.close();
    const subR = new PartitionedWriter(this.space.newDir('split'), seed, this.space.fanout);
    for (const line of readLines(reachPath)) if (line !== '') subR.write(unescapeField(line), line);
    subR.close();
    for (let p = 0; p < subC.fanout; p++) {
      before?.();
      this.matchPartition(subC.writers[p]!.path, subC.writers[p]!.lines, subR.writers[p]!.path, depth + 1, out, before);
    }
    rmSync(subC.dir, { recursive: true, force: true });
    rmSync(subR.dir, { recursive: true, force: true });
  }

  /** Every candidate, in store order (memory: insertion order; spilled: partition by partition). */
  *entries(): Generator<Candidate> {
    if (this.mem !== null) {
      const a = this.mem;
      for (let i = 0; i < a.count; i++) yield a.get(i);
      return;
    }
    if (this.spill === null) return;
    this.spill.close();
    for (const w of this.spill.writers) yield* candidatesOfFile(w.path);
  }

  /** Drop what this store holds (its spill files included). */
  dispose(): void {
    this.mem = null;
    if (this.spill !== null) {
      this.spill.close();
      rmSync(this.spill.dir, { recursive: true, force: true });
    }
    if (this.sink instanceof SpillSink) {
      this.sink.writer.close();
      rmSync(this.sink.writer.dir, { recursive: true, force: true });
    }
  }
}

function nthTab(line: string, n: number): number {
  let i = -1;
  for (let k = 0; k < n; k++) {
    i = line.indexOf('\t', i + 1);
    if (i < 0) throw new Error(`corrupt orphan spill line: ${line.slice(0, 80)}`);
  }
  return i;
}

