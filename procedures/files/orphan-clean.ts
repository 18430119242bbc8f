/**
 * Orphan detection for remove_orphan_files in bounded memory: Paimon's OrphanFilesClean /
 * LocalOrphanFilesClean, with more guards.
 *
 *   1. List candidates (orphan-listing.ts, several directories at once, off the main thread
 *      where the FileIO can) into a compact store that spills to temp files past a threshold
 *      (orphan-store.ts). Meanwhile, read the generation as it is now (branches, snapshots,
 *      tags, long-lived changelogs) and collect every file name it reaches
 *      (orphan-reachable.ts) into a reachable-name store that spills the same way.
 *   2. AFTER the listing, re-read the generation and read whatever is new (a commit, tag,
 *      branch or changelog that appeared meanwhile, or a file replaced in place), until two
 *      reads agree (bounded rounds). So everything that exists once the listing is complete
 *      has been read, as in Paimon, which reads it all after listing; reading earlier only
 *      adds names (keeps more files), never removes one.
 *   3. Orphans = candidates whose file name nothing reaches (a hash-partitioned anti-join when
 *      spilled); they form a new store, which may spill too.
 *   4. `recheck`, right before deleting: the generation once more; whatever is new is read
 *      and its names are removed from the orphans the same way.
 *
 * Files of writes still in flight look orphaned until their commit lands: only `older_than`
 * protects them, which is why the procedure refuses a young `older_than` unless forced.
 */
import { PaimonError } from '../../src/paimon/errors.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import {
  checkBranchesHaveSchemas,
  listBranches,
  listGeneration,
  readMetaRef,
  type MetaRef,
  type OrphanLayout,
} from '../../src/paimon/maintenance/orphan-files.js';
import type { MaintenanceReader } from '../../src/paimon/maintenance/types.js';
import { listCandidates, type LinkedDirectories } from './orphan-listing.js';
import { markReachable, type ReachStats } from './orphan-reachable.js';
import { SpillSpace } from './orphan-spill.js';
import { CandidateStore, DirTable, ReachableStore } from './orphan-store.js';

export interface OrphanProgress {
  phase: 'list' | 'reachability' | 'match' | 'recheck';
  done: number;
  message?: string;
}

export interface OrphanCleanOptions {
  fileIO: FileIO;
  layout: OrphanLayout;
  olderThanMillis: number;
  reader: MaintenanceReader;
  /** Candidates (and later orphans) kept in memory before spilling to `spill`. */
  memoryThreshold: number;
  spill: SpillSpace;
  /** Directories listed at once, and manifests read at once. */
  listConcurrency: number;
  /** Bound on re-reads of the generation while writers keep committing. */
  maxRounds?: number;
  checkAbort?: () => void;
  onProgress?: (p: OrphanProgress) => void;
}

export interface OrphanScan {
  /** Candidates nothing reached (consume with `orphans.entries()`; `dispose()` when done). */
  orphans: CandidateStore;
  dirs: DirTable;
  candidateCount: number;
  /** Snapshots + tags + changelogs read, over all branches and all rounds. */
  metadataFilesRead: number;
  /** Generation rounds until two consecutive listings agreed (1 = nothing changed meanwhile). */
  rounds: number;
  branches: string[];
  /** Keys (refKey) of every snapshot, tag and changelog file already accounted for. */
  knownRefs: Set<string>;
  /** Manifests already read (a later snapshot sharing them adds nothing new). */
  seenManifests: Set<string>;
  reach: ReachStats;
  /** Directories and entries listed. */
  listing: { directoriesListed: number; entriesSeen: number };
  /** Directories not listed because they are (or lie below) a symbolic link. */
  linkedDirectories: LinkedDirectories;
  /** Whether anything went to temp files. */
  spilled: boolean;
  /** Most candidates held in memory at once. */
  peakInMemory: number;
}

/**
 * Identity of a metadata file as read: its name, size and modification time, for every kind
 * (a tag is replaced in place by replace_tag; a snapshot id reappears after a rollback).
 */
function refKey(r: MetaRef): string {
  return `${r.branch}\u0000${r.kind}\u0000${r.name}\u0000${r.modificationTime}\u0000${r.size}`;
}

async function currentGeneration(fileIO: FileIO, tableRoot: string): Promise<{ branches: string[]; refs: MetaRef[] }> {
  const branches = await listBranches(fileIO, tableRoot);
  await checkBranchesHaveSchemas(fileIO, tableRoot, branches);
  return { branches, refs: await listGeneration(fileIO, tableRoot, branches) };
}

async function readRefs(
  fresh: readonly MetaRef[],
  known: Set<string>,
  sink: ReachableStore,
  seenManifests: Set<string>,
  reach: ReachStats,
  opts: OrphanCleanOptions,
  phase: OrphanProgress['phase'],
  counter: { read: number },
): Promise<void> {
  for (const r of fresh) {
    opts.checkAbort?.();
    known.add(refKey(r));
    const s = await readMetaRef(opts.fileIO, r);
    counter.read++;
    if (s !== null) {
      await markReachable(s, {
        reader: opts.reader,
        mark: (n) => sink.mark(n),
        seenManifests,
        concurrency: opts.listConcurrency,
        stats: reach,
        ...(opts.checkAbort ? { checkAbort: opts.checkAbort } : {}),
      });
    }
    opts.onProgress?.({ phase, done: counter.read, message: `${reach.manifestsRead} manifests, ${reach.entriesRead} entries read` });
  }
}

/** Steps 1-4. Deleting is the caller's job (after `recheck`). */
export async function scanOrphanFiles(opts: OrphanCleanOptions): Promise<OrphanScan> {
  const { fileIO, layout } = opts;
  const maxRounds = opts.maxRounds ?? 5;

  // Branches as of the listing: their snapshot/ and changelog/ temp files are candidates.
  const listedBranches = await listBranches(fileIO, layout.tableRoot);
  await checkBranchesHaveSchemas(fileIO, layout.tableRoot, listedBranches);

  const dirs = new DirTable();
  const candidates = new CandidateStore(opts.spill, opts.memoryThreshold);
  const reachable = new ReachableStore(opts.spill, opts.memoryThreshold);
  let orphans: CandidateStore | null = null;
  try {
    // 1. The listing and a first read of the generation, side by side. If one fails, the other stops.
    let failed: { error: unknown } | null = null;
    const check = (): void => {
      if (failed !== null) throw failed.error;
      opts.checkAbort?.();
    };
    const guard = async <T>(p: Promise<T>): Promise<T> => {
      try {
        return await p;
      } catch (e) {
        failed ??= { error: e };
        throw e;
      }
    };
    const sideOpts: OrphanCleanOptions = { ...opts, checkAbort: check };
    const known = new Set<string>();
    const seenManifests = new Set<string>();
    const reach: ReachStats = { manifestListsRead: 0, manifestsRead: 0, entriesRead: 0 };
    const counter = { read: 0 };
    const results = await Promise.allSettled([
      guard(
        listCandidates({
          fileIO,
          layout,
          branches: listedBranches,
          olderThanMillis: opts.olderThanMillis,
          concurrency: opts.listConcurrency,
          store: candidates,
          dirs,
          checkAbort: check,
          onProgress: (p) =>
            opts.onProgress?.({ phase: 'list', done: p.entriesSeen, message: `${p.directoriesListed} directories listed, ${p.candidates} candidate files` }),
        }),
      ),
      guard(
        (async () => {
          const gen = await currentGeneration(fileIO, layout.tableRoot);
          await readRefs(gen.refs, known, reachable, seenManifests, reach, sideOpts, 'reachability', counter);
        })(),
      ),
    ]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
    const listing = (results[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof listCandidates>>>).value;

    // 2. After the listing: whatever appeared meanwhile, until two reads agree.
    let rounds = 1;
    let branches = listedBranches;
    for (;;) {
      rounds++;
      const gen = await currentGeneration(fileIO, layout.tableRoot);
      branches = gen.branches;
      const fresh = gen.refs.filter((r) => !known.has(refKey(r)));
      if (fresh.length === 0) break;
      if (rounds > maxRounds) {
        throw new PaimonError(
          'COMMIT_CONFLICT',
          `the table kept changing while its used files were collected (${maxRounds} rounds); nothing was deleted, retry later`,
        );
      }
      await readRefs(fresh, known, reachable, seenManifests, reach, opts, 'reachability', counter);
    }

    // 3. The anti-join.
    const spilled = candidates.spilled || reachable.spilled;
    opts.onProgress?.({ phase: 'match', done: 0, message: `${candidates.count} candidates, ${reachable.marked} reachable names${spilled ? ', spilled to disk' : ''}` });
    orphans = new CandidateStore(opts.spill, opts.memoryThreshold);
    const peakReach = reachable.inMemory;
    candidates.match(reachable, orphans, opts.checkAbort);
    opts.onProgress?.({ phase: 'match', done: candidates.count, message: `${orphans.count} orphans` });
    return {
      orphans,
      dirs,
      candidateCount: candidates.count,
      metadataFilesRead: counter.read,
      rounds,
      branches,
      knownRefs: known,
      seenManifests,
      reach,
      listing: { directoriesListed: listing.directoriesListed, entriesSeen: listing.entriesSeen },
      linkedDirectories: listing.linkedDirectories,
      spilled: spilled || orphans.spilled,
      peakInMemory: Math.max(candidates.stats.peakInMemory, orphans.stats.peakInMemory, peakReach),
    };
  } catch (e) {
    orphans?.dispose();
    throw e;
  } finally {
    candidates.dispose();
    reachable.dispose();
  }
}

/**
 * Last look before deleting: re-list the generation and drop from the orphans anything that a
 * snapshot, tag, changelog or branch created since the scan reaches. Replaces `scan.orphans`
 * (the old store is consumed) and returns how many metadata files were new.
 */
export async function recheckOrphans(opts: OrphanCleanOptions, scan: OrphanScan): Promise<number> {
  const gen = await currentGeneration(opts.fileIO, opts.layout.tableRoot);
  const fresh = gen.refs.filter((r) => !scan.knownRefs.has(refKey(r)));
  if (fresh.length === 0) return 0;
  const before = scan.orphans;
  const reachable = new ReachableStore(opts.spill, opts.memoryThreshold);
  const after = new CandidateStore(opts.spill, opts.memoryThreshold);
  try {
    // Manifests read by the scan are skipped: every name they reach was collected then, so none is an orphan.
    await readRefs(fresh, scan.knownRefs, reachable, scan.seenManifests, scan.reach, opts, 'recheck', { read: 0 });
    before.match(reachable, after, opts.checkAbort);
  } catch (e) {
    after.dispose();
    throw e;
  } finally {
    before.dispose();
    reachable.dispose();
  }
  scan.orphans = after;
  scan.metadataFilesRead += fresh.length;
  return fresh.length;
}
