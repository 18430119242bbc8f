/**
 * Listing the candidate files of remove_orphan_files (Paimon's OrphanFilesClean.listPaimonFiles
 * and listFileDirs) with up to `concurrency` directories listed at once: each branch's
 * snapshot/ and changelog/ (their non-snapshot files: failed atomic-write temp files),
 * manifest/, index/, statistics/, and every bucket directory below the data root and each
 * external data path, reached by walking `partitionKeyCount` levels of `k=v` directories.
 *
 * A file is a candidate when it is not a directory, is older than `olderThanMillis` and is not
 * a managed blob pack. Candidates go straight into the store (nothing else is kept per file);
 * directories are walked as they are discovered, so the listing of a wide table starts
 * deleting nothing and holds only the queue of directories still to list.
 *
 * Symbolic links to directories are never followed (a link inside the table may point
 * anywhere, and Paimon's rules say nothing about what lies behind it): a linked directory met
 * in the walk, or a table sub-directory that is a link or lies below one, is not listed and is
 * reported in `linkedDirectories`. A link to a file is a file like any other (deleting it
 * removes the link, never its target).
 */
import type { FileIO, FileStatus, FileStatusBatch } from '../../src/paimon/fs/file-io.js';
import { branchRoot, MANAGED_BLOB_SUFFIX, type OrphanLayout } from '../../src/paimon/maintenance/orphan-files.js';
import { join, name as baseName } from '../../src/paimon/fs/path.js';
import { AREA_CODE, type CandidateArea, type CandidateStore, type DirTable } from './orphan-store.js';

interface ListTask {
  dir: string;
  /** Partition levels still to walk above the bucket directories; null for a directory whose files are listed. */
  walk: number | null;
  area: CandidateArea;
}

export interface ListingProgress {
  directoriesListed: number;
  entriesSeen: number;
  candidates: number;
}

/** Directories left unlisted because they are, or lie below, a symbolic link (at most LINKED_KEPT paths). */
export interface LinkedDirectories {
  count: number;
  paths: string[];
}

const LINKED_KEPT = 20;

export interface ListingResult extends ListingProgress {
  linkedDirectories: LinkedDirectories;
}

export interface ListCandidatesOptions {
  fileIO: FileIO;
  layout: OrphanLayout;
  /** Branches whose snapshot/ and changelog/ directories are scanned. */
  branches: readonly string[];
  olderThanMillis: number;
  concurrency: number;
  store: CandidateStore;
  dirs: DirTable;
  /** Checked between directories and every few thousand entries; throwing stops the listing. */
  checkAbort?: () => void;
  /** Called about every 10,000 entries and at the end. */
  onProgress?: (p: ListingProgress) => void;
}

function accepts(area: CandidateArea, n: string): boolean {
  if (area === 'snapshot_dir') return !n.startsWith('snapshot-') && n !== 'EARLIEST' && n !== 'LATEST';
  if (area === 'changelog_dir') return !n.startsWith('changelog-') && n !== 'EARLIEST' && n !== 'LATEST';
  return !n.endsWith(MANAGED_BLOB_SUFFIX);
}

/**
 * Whether `dir` is a symbolic link or lies below one, looking at each component below `root`
 * (the table directory, which itself may be reached through links the operator set up).
 */
async function belowLink(fileIO: FileIO, root: string, dir: string): Promise<boolean> {
  const base = root.endsWith('/') ? root : `${root}/`;
  if (!dir.startsWith(base)) return false;
  let at = root;
  for (const part of dir.slice(base.length).split('/')) {
    if (part === '') continue;
    at = join(at, part);
    const st = await fileIO.getStatus(at);
    if (st === null) return false;
    if (st.isSymlink) return true;
  }
  return false;
}

/** List every candidate into `opts.store`. */
export async function listCandidates(opts: ListCandidatesOptions): Promise<ListingResult> {
  const { fileIO, layout, store, dirs, olderThanMillis } = opts;
  const linked: LinkedDirectories = { count: 0, paths: [] };
  // A table sub-directory that is a link is met twice: as a fixed root and in the walk of the table root.
  const linkedSeen = new Set<string>();
  const skipLinked = (path: string): void => {
    if (linkedSeen.has(path)) return;
    linkedSeen.add(path);
    linked.count++;
    if (linked.paths.length < LINKED_KEPT) linked.paths.push(path);
  };
  const fixed: ListTask[] = [];
  for (const b of opts.branches) {
    const root = branchRoot(layout.tableRoot, b);
    fixed.push({ dir: join(root, 'snapshot'), walk: null, area: 'snapshot_dir' });
    fixed.push({ dir: join(root, 'changelog'), walk: null, area: 'changelog_dir' });
  }
  fixed.push({ dir: join(layout.tableRoot, 'manifest'), walk: null, area: 'manifest' });
  fixed.push({ dir: join(layout.tableRoot, 'index'), walk: null, area: 'index' });
  fixed.push({ dir: join(layout.tableRoot, 'statistics'), walk: null, area: 'statistics' });
  fixed.push({ dir: layout.dataRoot, walk: layout.partitionKeyCount, area: 'data' });
  const queue: ListTask[] = [];
  for (const t of fixed) {
    if (fileIO.isObjectStore || !(await belowLink(fileIO, layout.tableRoot, t.dir))) queue.push(t);
    else skipLinked(t.dir);
  }
  // External data paths are configured by the table's owner to lie elsewhere: listed as given.
  for (const root of layout.externalPaths) queue.push({ dir: root, walk: layout.partitionKeyCount, area: 'data' });
  // Directories are taken from the end: a depth-first walk keeps the queue short.
  queue.reverse();

  const progress: ListingProgress = { directoriesListed: 0, entriesSeen: 0, candidates: 0 };
  let nextReport = 10_000;
  const report = (): void => {
    if (progress.entriesSeen >= nextReport) {
      nextReport = progress.entriesSeen + 10_000;
      opts.onProgress?.({ ...progress });
    }
  };

  const subdir = (t: ListTask, path: string, n: string): void => {
    if (t.walk === 0) {
      if (n.startsWith('bucket-')) queue.push({ dir: path, walk: null, area: t.area });
    } else if (t.walk !== null && n.includes('=')) {
      queue.push({ dir: path, walk: t.walk - 1, area: t.area });
    }
  };

  // Batches of parallel arrays where the FileIO offers them (listed off the main thread locally).
  const listBatched = async (t: ListTask, batches: AsyncIterable<FileStatusBatch>): Promise<void> => {
    const area = AREA_CODE[t.area];
    let dirIndex = -1;
    for await (const b of batches) {
      opts.checkAbort?.();
      const { names, sizes, modificationTimes: mtimes, isDir, isLink } = b;
      for (let i = 0; i < names.length; i++) {
        progress.entriesSeen++;
        const n = names[i]!;
        if (isDir[i] === 1) {
          if (isLink?.[i] === 1) skipLinked(join(t.dir, n));
          else if (t.walk !== null) subdir(t, join(t.dir, n), n);
          continue;
        }
        if (t.walk !== null || mtimes[i]! >= olderThanMillis || !accepts(t.area, n)) continue;
        if (dirIndex < 0) dirIndex = dirs.intern(t.dir);
        store.add(dirIndex, n, sizes[i]!, area);
        progress.candidates++;
      }
      report();
    }
  };

  const listOne = async (t: ListTask): Promise<void> => {
    if (fileIO.listBatches) {
      await listBatched(t, fileIO.listBatches(t.dir));
      return;
    }
    if (t.walk !== null) {
      for await (const st of fileIO.list(t.dir)) {
        progress.entriesSeen++;
        if (st.isDir && st.isSymlink) skipLinked(st.path);
        else if (st.isDir) subdir(t, st.path, baseName(st.path));
      }
      return;
    }
    const area = AREA_CODE[t.area];
    // The directory part of listed paths, interned once per distinct spelling.
    let dirPath = '';
    let dirIndex = -1;
    for await (const st of fileIO.list(t.dir)) {
      progress.entriesSeen++;
      if ((progress.entriesSeen & 4095) === 0) opts.checkAbort?.();
      report();
      if (st.isDir && st.isSymlink) skipLinked(st.path);
      if (!isOldFile(st, olderThanMillis)) continue;
      const n = baseName(st.path);
      if (!accepts(t.area, n)) continue;
      const d = st.path.slice(0, st.path.length - n.length - 1);
      if (d !== dirPath) {
        dirPath = d;
        dirIndex = dirs.intern(d);
      }
      store.add(dirIndex, n, st.size, area);
      progress.candidates++;
    }
  };

  // A small pool: workers take directories until the queue is empty and nobody can add more.
  let active = 0;
  let failure: { error: unknown } | null = null;
  let wake: Array<() => void> = [];
  const wakeAll = (): void => {
    const w = wake;
    wake = [];
    for (const f of w) f();
  };
  const worker = async (): Promise<void> => {
    for (;;) {
      if (failure !== null) return;
      const t = queue.pop();
      if (t === undefined) {
        if (active === 0) {
          wakeAll();
          return;
        }
        await new Promise<void>((r) => wake.push(r));
        continue;
      }
      active++;
      try {
        opts.checkAbort?.();
        await listOne(t);
        progress.directoriesListed++;
      } catch (e) {
        failure ??= { error: e };
      } finally {
        active--;
        wakeAll();
      }
    }
  };
  const n = Math.max(1, opts.concurrency);
  await Promise.all(Array.from({ length: n }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
  opts.onProgress?.({ ...progress });
  return { ...progress, linkedDirectories: linked };
}

function isOldFile(st: FileStatus, olderThanMillis: number): boolean {
  return !st.isDir && st.modificationTime < olderThanMillis;
}
