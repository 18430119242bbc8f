/**
 * Deleting planned files with bounded concurrency (config procedures.delete_concurrency),
 * honouring the call's abort signal between files, reporting progress, and tallying counts
 * and bytes per kind for the result. A file that is already gone counts as not deleted
 * (an earlier, interrupted run or a concurrent expirer removed it).
 */
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { TableScopedFileIO } from '../../src/paimon/fs/table-scoped-file-io.js';
import type { DeletedFileKind, PlannedFile } from '../../src/paimon/maintenance/types.js';

export class DeletionTally {
  readonly byKind = new Map<DeletedFileKind, { files: number; bytes: number }>();
  add(kind: DeletedFileKind, bytes: number): void {
    const t = this.byKind.get(kind) ?? { files: 0, bytes: 0 };
    t.files++;
    t.bytes += bytes;
    this.byKind.set(kind, t);
  }
  get files(): number {
    let n = 0;
    for (const t of this.byKind.values()) n += t.files;
    return n;
  }
  get bytes(): number {
    let n = 0;
    for (const t of this.byKind.values()) n += t.bytes;
    return n;
  }
  count(kind: DeletedFileKind): number {
    return this.byKind.get(kind)?.files ?? 0;
  }
  /** `{"data":{"files":3,"bytes":1200},...}` in a stable key order. */
  toJson(): string {
    const keys = [...this.byKind.keys()].sort();
    return JSON.stringify(Object.fromEntries(keys.map((k) => [k, this.byKind.get(k)])));
  }
}

export interface DeleteOptions {
  concurrency: number;
  dryRun: boolean;
  signal?: AbortSignal;
  /** Called about every 1000 files and at the end. */
  onProgress?: (done: number, total: number) => void;
  /** Check before each file (the call's abort, a pin re-check); throwing stops the deletion. */
  beforeEach?: () => void;
}

/**
 * Delete `files` (all of one phase; phases are run one after another by the caller so that
 * the crash-safe order holds). Unknown sizes are read with getStatus first.
 */
export async function deleteFiles(fileIO: FileIO, files: readonly PlannedFile[], tally: DeletionTally, opts: DeleteOptions): Promise<void> {
  // A planned path outside the table (a crafted `..` name or external path in a manifest) stops
  // the phase before anything of it is deleted, dry run included, so the plan's report is the truth.
  if (fileIO instanceof TableScopedFileIO) await fileIO.assertChangeable('delete', files.map((f) => f.path));
  await deleteFileStream(fileIO, files, files.length, tally, opts);
}

/**
 * `deleteFiles` over files produced one at a time (a spilled orphan list): at most
 * `concurrency` files are in flight, nothing else is held. `total` is for progress only.
 */
export async function deleteFileStream(
  fileIO: FileIO,
  files: Iterable<PlannedFile>,
  total: number,
  tally: DeletionTally,
  opts: DeleteOptions,
): Promise<void> {
  const it = files[Symbol.iterator]();
  let exhausted = false;
  let failed = false;
  let done = 0;
  const take = (): PlannedFile | null => {
    if (exhausted || failed) return null;
    const r = it.next();
    if (r.done) {
      exhausted = true;
      return null;
    }
    return r.value;
  };
  const worker = async (): Promise<void> => {
    try {
      for (;;) {
        const f = take();
        if (f === null) return;
        opts.beforeEach?.();
        if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
        let bytes = f.bytes;
        if (bytes === null) {
          const st = await fileIO.getStatus(f.path);
          if (st === null) {
            done++;
            continue; // already gone
          }
          bytes = st.size;
        }
        if (opts.dryRun) tally.add(f.kind, bytes);
        else if (await fileIO.delete(f.path)) tally.add(f.kind, bytes);
        done++;
        if (opts.onProgress && done % 1000 === 0) opts.onProgress(done, total);
      }
    } catch (e) {
      failed = true;
      throw e;
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency, total > 0 ? total : 1));
  try {
    await Promise.all(Array.from({ length: n }, worker));
  } finally {
    it.return?.();
  }
  opts.onProgress?.(done, total);
}

/** `1-5,7,9-12` for a sorted id list (compact for thousands of expired snapshots). */
export function compactIdRanges(ids: readonly number[]): string {
  const sorted = [...ids].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
