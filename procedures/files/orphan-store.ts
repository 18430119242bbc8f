/**
 * The candidate files of remove_orphan_files, held compactly, the file names the table's
 * metadata reaches, and the anti-join of the two.
 *
 * In memory (up to `threshold` entries each): each directory string once (DirTable), and per
 * candidate its name, a directory index, its size and its area in parallel typed arrays
 * (about 100 bytes a file with the name, against ~2 KB for a status object per file); the
 * reachable names in one Set.
 *
 * Past `threshold` a side spills: every entry (those in memory first) goes to one of
 * `fanout` temp files by the hash of its name. Reachable names can be collected while the
 * candidates are still being listed, since both sides are independent until `match`. If either
 * side spilled, `match` spills the other too and takes one partition at a time: its candidates
 * are loaded into memory (a partition still above the threshold is split again with a new hash
 * seed), its reachable names are streamed past them, the unmarked ones go to the output store.
 * Memory therefore stays near `threshold` entries whatever the count; the directory table grows
 * with the number of directories, not files.
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

/**
 * Re-splitting an oversized partition: from this depth on, a partition that holds one name only
 * (shared by more files than the threshold) is loaded as it is, since no seed can split it;
 * one with several names is split again, up to the hard limit (with fanout f, two names stay
 * together through every split with probability f^-MAX_SPLIT_DEPTH).
 */
const ONE_NAME_CHECK_DEPTH = 4;
const MAX_SPLIT_DEPTH = 32;

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

/** Marks in-memory candidates by name. */
class MemoryMatcher {
  private readonly first = new Map<string, number>();
  private readonly next: Int32Array;
  readonly hit: Uint8Array;

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

/** What both stores share: in memory up to `threshold` entries, then spilled to `space`. */
abstract class SpillingStore {
  protected spill: PartitionedWriter | null = null;

  constructor(
    protected readonly space: SpillSpace,
    readonly threshold: number,
  ) {
    if (!Number.isInteger(threshold) || threshold < 1) throw new Error(`orphan memory threshold must be a positive integer, got ${threshold}`);
  }

  get spilled(): boolean {
    return this.spill !== null;
  }
}

/**
 * The names the metadata reaches (with repeats): a Set up to `threshold`, then partitioned
 * temp files. `mark` everything, then hand the store to CandidateStore.match.
 */
export class ReachableStore extends SpillingStore {
  private set: Set<string> | null = new Set<string>();
  /** Names handed to `mark` (with repeats). */
  marked = 0;


  /** Distinct names in memory (0 once spilled). */
  get inMemory(): number {
    return this.set?.size ?? 0;
  }

  mark(name: string): void {
    this.marked++;
    if (this.set !== null) {
      this.set.add(name);
      if (this.set.size > this.threshold) this.toDisk();
      return;
    }
    this.spill!.write(name, escapeField(name));
  }

  /** Move the names to partitions (match does this when the candidates spilled). */
  toDisk(): PartitionedWriter {
    if (this.spill === null) {
      this.spill = new PartitionedWriter(this.space.newDir('reachable'), 0, this.space.fanout);
      for (const n of this.set!) this.spill.write(n, escapeField(n));
      this.set = null;
    }
    return this.spill;
  }

  /** The in-memory names, or null once spilled. */
  names(): ReadonlySet<string> | null {
    return this.set;
  }

  dispose(): void {
    this.set = null;
    if (this.spill !== null) {
      this.spill.close();
      rmSync(this.spill.dir, { recursive: true, force: true });
    }
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
 * A set of candidate files: in memory up to `threshold`, then spilled. Add everything, then
 * `match` against a ReachableStore into a fresh store (this one is consumed).
 */
export class CandidateStore extends SpillingStore {
  private mem: CandidateArrays | null = new CandidateArrays();
  private matched = false;
  count = 0;
  readonly stats: CandidateStoreStats = { peakInMemory: 0, partitionsMatched: 0 };


  add(dir: number, name: string, size: number, area: number): void {
    if (this.matched) throw new Error('CandidateStore: add after match');
    this.count++;
    if (this.spill !== null) {
      this.spill.write(name, candidateLine(dir, name, size, area));
      return;
    }
    const mem = this.mem!;
    mem.push(dir, name, size, area);
    if (mem.count > this.stats.peakInMemory) this.stats.peakInMemory = mem.count;
    if (mem.count > this.threshold) this.toDisk();
  }

  private toDisk(): PartitionedWriter {
    if (this.spill === null) {
      const mem = this.mem!;
      this.spill = new PartitionedWriter(this.space.newDir('candidates'), 0, this.space.fanout);
      for (let i = 0; i < mem.count; i++) {
        const n = mem.names[i]!;
        this.spill.write(n, candidateLine(mem.dirs[i]!, n, mem.sizes[i]!, mem.areas[i]!));
      }
      this.mem = null;
    }
    return this.spill;
  }

  /**
   * Every candidate whose name `reach` does not hold (and every temp-area one) into `out`.
   * Consumes this store and `reach`. `beforePartition` runs before each spilled partition
   * (the caller's abort check).
   */
  match(reach: ReachableStore, out: CandidateStore, beforePartition?: () => void): void {
    if (this.matched) throw new Error('CandidateStore: matched twice');
    this.matched = true;
    const names = reach.names();
    if (this.mem !== null && names !== null) {
      const a = this.mem;
      for (let i = 0; i < a.count; i++) {
        if (isTempArea(a.areas[i]!) || !names.has(a.names[i]!)) out.add(a.dirs[i]!, a.names[i]!, a.sizes[i]!, a.areas[i]!);
      }
      this.stats.partitionsMatched = 1;
      this.mem = null;
      reach.dispose();
      return;
    }
    const cands = this.toDisk();
    const rw = reach.toDisk();
    cands.close();
    rw.close();
    for (let p = 0; p < cands.fanout; p++) {
      beforePartition?.();
      const cw = cands.writers[p]!;
      this.matchPartition(cw.path, cw.lines, rw.writers[p]!.path, 0, out, beforePartition);
      rmSync(cw.path, { force: true });
      rmSync(rw.writers[p]!.path, { force: true });
    }
    rmSync(cands.dir, { recursive: true, force: true });
    reach.dispose();
  }

  private matchPartition(candPath: string, candCount: number, reachPath: string, depth: number, out: CandidateStore, before?: () => void): void {
    if (candCount === 0) return;
    if (candCount <= this.threshold || depth >= MAX_SPLIT_DEPTH || (depth >= ONE_NAME_CHECK_DEPTH && holdsOneName(candPath))) {
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

/** Whether every candidate line of a partition file names the same file name (read streaming). */
function holdsOneName(path: string): boolean {
  let first: string | null = null;
  for (const line of readLines(path)) {
    if (line === '') continue;
    const name = line.slice(nthTab(line, 3) + 1);
    if (first === null) first = name;
    else if (name !== first) return false;
  }
  return true;
}
