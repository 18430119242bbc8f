/**
 * The file names a snapshot, tag or long-lived changelog reaches (Paimon's
 * OrphanFilesClean.getUsedFiles): its manifest lists, their manifests, every data file and
 * extra file of those manifests' entries (ADD and DELETE alike), its index manifest and index
 * files, its statistics file. Names are handed to a sink one at a time; nothing is collected
 * here, so memory is bounded by one manifest per concurrent read.
 *
 * Reads follow Paimon's rule (OrphanFilesClean.retryReadingFiles): a missing file means the
 * metadata was expired meanwhile and reaches nothing; any other failure is retried and then
 * aborts the clean, because a file we could not read may reference files that look orphaned.
 */
import { PaimonError, isPaimonError } from '../../src/paimon/errors.js';
import type { MaintenanceReader, ManifestFileNames, SnapshotLike } from '../../src/paimon/maintenance/types.js';

const READ_RETRIES = 3;
/** Entries decoded between turns of the event loop. */
const YIELD_EVERY = 4096;

async function readOrNothing<T>(read: () => Promise<T>, nothing: T): Promise<T> {
  let last: unknown;
  for (let i = 0; i < READ_RETRIES; i++) {
    try {
      return await read();
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return nothing;
      // A file that exists but does not decode will not decode on a retry: keep its code.
      if (isPaimonError(e, 'CORRUPT_METADATA') || isPaimonError(e, 'UNSUPPORTED_FORMAT')) throw e;
      last = e;
    }
  }
  throw new PaimonError('STORAGE_ERROR', `orphan clean aborted: cannot read a used file: ${String((last as Error)?.message ?? last)}`, {
    cause: last,
  });
}

export interface ReachStats {
  manifestListsRead: number;
  manifestsRead: number;
  entriesRead: number;
}

export interface MarkReachableOptions {
  reader: MaintenanceReader;
  mark: (name: string) => void;
  /** Manifests already read for an earlier snapshot (shared by all calls of one clean). */
  seenManifests: Set<string>;
  /** Manifests read at once. */
  concurrency: number;
  stats: ReachStats;
  checkAbort?: () => void;
}

/** Hand every name `s` reaches to `opts.mark`. */
export async function markReachable(s: SnapshotLike, opts: MarkReachableOptions): Promise<void> {
  const { reader, mark, seenManifests, stats } = opts;
  const lists = [s.changelogManifestList, s.deltaManifestList, s.baseManifestList].filter(
    (x): x is string => typeof x === 'string' && x.length > 0,
  );
  const manifests: string[] = [];
  for (const l of lists) {
    mark(l);
    const refs = await readOrNothing(() => reader.readManifestList(l), []);
    stats.manifestListsRead++;
    for (const m of refs) {
      mark(m.fileName);
      if (!seenManifests.has(m.fileName)) {
        seenManifests.add(m.fileName);
        manifests.push(m.fileName);
      }
    }
  }
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= manifests.length || failed) return;
      opts.checkAbort?.();
      const m = manifests[i]!;
      try {
        const entries: Iterable<ManifestFileNames> = await readOrNothing(
          () => (reader.iterateManifestFiles ? reader.iterateManifestFiles(m) : reader.readManifest(m)),
          [],
        );
        stats.manifestsRead++;
        try {
          let n = 0;
          for (const e of entries) {
            stats.entriesRead++;
            mark(e.fileName);
            for (const x of e.extraFiles) mark(x);
            // A base manifest can hold 100,000s of entries: let a concurrent listing take its batches meanwhile.
            if (++n % YIELD_EVERY === 0) await new Promise<void>((r) => setImmediate(r));
          }
        } catch (e) {
          throw new PaimonError('STORAGE_ERROR', `orphan clean aborted: cannot read a used file: ${String((e as Error)?.message ?? e)}`, { cause: e });
        }
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, manifests.length)) }, worker));
  if (s.indexManifest) {
    const idx = s.indexManifest;
    const refs = await readOrNothing(() => reader.readIndexManifest(idx), null);
    if (refs !== null) {
      mark(idx);
      for (const r of refs) mark(r.fileName);
    }
  }
  if (s.statistics) mark(s.statistics);
}
