/**
 * Orphan-file detection for remove_orphan_files: Paimon's OrphanFilesClean /
 * LocalOrphanFilesClean, with one more guard.
 *
 *   1. List candidates FIRST: files older than `olderThanMillis` in manifest/, index/,
 *      statistics/, every bucket directory (partition levels walked like Paimon), every
 *      external data path, plus non-snapshot files in each branch's snapshot/ and changelog/
 *      (failed atomic-rename temp files).
 *   2. THEN read the generation (branches, snapshots, tags, long-lived changelogs) and
 *      collect every file name they reach (manifest lists, manifests, index manifest and
 *      index files, statistics, data files and their extra files from ADD and DELETE
 *      entries). A commit that lands during the listing is therefore seen here.
 *   3. Re-read the generation; anything new (a commit, tag, branch or changelog that
 *      appeared meanwhile) is added to the used set, until two reads agree (bounded).
 *   4. Orphans = candidates whose file name is not used. Matching is by file name, as in Paimon.
 *
 * Files of writes still in flight look orphaned until their commit lands: only `older_than`
 * protects them, which is why the procedure refuses a young `older_than` unless forced.
 */
import { PaimonError, isPaimonError } from '../errors.js';
import type { FileIO, FileStatus } from '../file-io.js';
import { JsonDecimal, parseJson, type JsonObject, type JsonValue } from '../json.js';
import { join, name as baseName } from '../path.js';
import type { MaintenanceReader, SnapshotLike } from './types.js';

/** Never candidates (OrphanFilesClean.isManagedBlobPack). */
export const MANAGED_BLOB_SUFFIX = '.managed.blob';

export type CandidateArea = 'snapshot_dir' | 'changelog_dir' | 'manifest' | 'index' | 'statistics' | 'data';

export interface OrphanCandidate {
  path: string;
  name: string;
  size: number;
  modificationTime: number;
  area: CandidateArea;
}

export interface OrphanLayout {
  tableRoot: string;
  partitionKeyCount: number;
  /** Root of the bucket directories: the table root, or `<root>/<data-file.path-directory>`. */
  dataRoot: string;
  /** `data-file.external-paths` roots. */
  externalPaths: readonly string[];
}

/** Branch root: the table root for main, `<root>/branch/branch-<name>` otherwise (BranchManager.branchPath). */
export function branchRoot(tableRoot: string, branch: string): string {
  return branch === 'main' ? tableRoot : join(tableRoot, 'branch', `branch-${branch}`);
}

const SNAPSHOT_FILE = /^snapshot-(\d+)$/;
const CHANGELOG_FILE = /^changelog-(\d+)$/;

/** Branch names under `branch/` (directories named branch-<name>), plus main. */
export async function listBranches(fileIO: FileIO, tableRoot: string): Promise<string[]> {
  const out = ['main'];
  for await (const st of fileIO.list(join(tableRoot, 'branch'))) {
    const n = baseName(st.path);
    if (st.isDir && n.startsWith('branch-') && n.length > 'branch-'.length) out.push(n.slice('branch-'.length));
  }
  return out;
}

/**
 * OrphanFilesClean.validBranches: a branch without any schema file is half-created or
 * half-deleted; cleaning around it could delete its files, so refuse like Paimon.
 */
export async function checkBranchesHaveSchemas(fileIO: FileIO, tableRoot: string, branches: readonly string[]): Promise<void> {
  const bad: string[] = [];
  for (const b of branches) {
    if (b === 'main') continue;
    let found = false;
    for await (const st of fileIO.list(join(branchRoot(tableRoot, b), 'schema'))) {
      if (!st.isDir && /^schema-\d+$/.test(baseName(st.path))) {
        found = true;
        break;
      }
    }
    if (!found) bad.push(b);
  }
  if (bad.length > 0) {
    throw new PaimonError(
      'CORRUPT_METADATA',
      `Branches [${bad.join(', ')}] have no schemas. Orphan files cleaning aborted. Please check these branches manually.`,
    );
  }
}

/** Directories holding data files: walk `partitionKeyCount` levels of k=v dirs down to bucket-* (listFileDirs). */
async function* dataDirs(fileIO: FileIO, dir: string, level: number): AsyncGenerator<string> {
  const subdirs: string[] = [];
  for await (const st of fileIO.list(dir)) {
    if (!st.isDir) continue;
    const n = baseName(st.path);
    if (level === 0 ? n.startsWith('bucket-') : n.includes('=')) subdirs.push(st.path);
  }
  if (level === 0) {
    yield* subdirs;
    return;
  }
  for (const p of subdirs) yield* dataDirs(fileIO, p, level - 1);
}

/**
 * Stream the candidates: files older than `olderThanMillis`, never directories, never
 * managed blob packs. `branches` are the branches whose snapshot/ and changelog/ are scanned.
 */
export async function* listOrphanCandidates(
  fileIO: FileIO,
  layout: OrphanLayout,
  branches: readonly string[],
  olderThanMillis: number,
): AsyncGenerator<OrphanCandidate> {
  const old = (st: FileStatus): boolean => !st.isDir && st.modificationTime < olderThanMillis;
  for (const b of branches) {
    const root = branchRoot(layout.tableRoot, b);
    for await (const st of fileIO.list(join(root, 'snapshot'))) {
      const n = baseName(st.path);
      if (old(st) && !n.startsWith('snapshot-') && n !== 'EARLIEST' && n !== 'LATEST') {
        yield { path: st.path, name: n, size: st.size, modificationTime: st.modificationTime, area: 'snapshot_dir' };
      }
    }
    for await (const st of fileIO.list(join(root, 'changelog'))) {
      const n = baseName(st.path);
      if (old(st) && !n.startsWith('changelog-') && n !== 'EARLIEST' && n !== 'LATEST') {
        yield { path: st.path, name: n, size: st.size, modificationTime: st.modificationTime, area: 'changelog_dir' };
      }
    }
  }
  const flat: Array<[string, CandidateArea]> = [
    [join(layout.tableRoot, 'manifest'), 'manifest'],
    [join(layout.tableRoot, 'index'), 'index'],
    [join(layout.tableRoot, 'statistics'), 'statistics'],
  ];
  for (const [dir, area] of flat) {
    for await (const st of fileIO.list(dir)) {
      const n = baseName(st.path);
      if (old(st) && !n.endsWith(MANAGED_BLOB_SUFFIX)) {
        yield { path: st.path, name: n, size: st.size, modificationTime: st.modificationTime, area };
      }
    }
  }
  for (const root of [layout.dataRoot, ...layout.externalPaths]) {
    for await (const dir of dataDirs(fileIO, root, layout.partitionKeyCount)) {
      for await (const st of fileIO.list(dir)) {
        const n = baseName(st.path);
        if (old(st) && !n.endsWith(MANAGED_BLOB_SUFFIX)) {
          yield { path: st.path, name: n, size: st.size, modificationTime: st.modificationTime, area: 'data' };
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The generation: which snapshots, tags and changelogs exist, per branch
// ---------------------------------------------------------------------------------------------

/** One snapshot-like metadata file: a snapshot, a tag or a long-lived changelog. */
export interface MetaRef {
  branch: string;
  kind: 'snapshot' | 'tag' | 'changelog';
  /** File name: snapshot-<id>, tag-<name>, changelog-<id>. */
  name: string;
  path: string;
  /** Tags can be replaced in place (replace_tag), so a tag is identified with its mtime and size. */
  modificationTime: number;
  size: number;
}

export function metaRefKey(r: MetaRef): string {
  const version = r.kind === 'tag' ? `\u0000${r.modificationTime}\u0000${r.size}` : '';
  return `${r.branch}\u0000${r.kind}\u0000${r.name}${version}`;
}

/** List the snapshot, tag and long-lived changelog files of every branch (names only, no reads). */
export async function listGeneration(fileIO: FileIO, tableRoot: string, branches: readonly string[]): Promise<MetaRef[]> {
  const out: MetaRef[] = [];
  for (const branch of branches) {
    const root = branchRoot(tableRoot, branch);
    for await (const st of fileIO.list(join(root, 'snapshot'))) {
      const n = baseName(st.path);
      if (!st.isDir && SNAPSHOT_FILE.test(n)) out.push({ branch, kind: 'snapshot', name: n, path: st.path, modificationTime: st.modificationTime, size: st.size });
    }
    for await (const st of fileIO.list(join(root, 'tag'))) {
      const n = baseName(st.path);
      if (!st.isDir && n.startsWith('tag-') && n.length > 4) out.push({ branch, kind: 'tag', name: n, path: st.path, modificationTime: st.modificationTime, size: st.size });
    }
    for await (const st of fileIO.list(join(root, 'changelog'))) {
      const n = baseName(st.path);
      if (!st.isDir && CHANGELOG_FILE.test(n)) out.push({ branch, kind: 'changelog', name: n, path: st.path, modificationTime: st.modificationTime, size: st.size });
    }
  }
  return out;
}

function str(o: JsonObject, k: string): string | null {
  const v = o[k];
  return typeof v === 'string' ? v : null;
}
function num(o: JsonObject, k: string): number | null {
  const v: JsonValue | undefined = o[k];
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/** Parse the fields of snapshot/tag/changelog JSON that maintenance needs. */
export function parseSnapshotLike(text: string, what: string): SnapshotLike {
  const v = parseJson(text, what);
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof JsonDecimal) {
    throw new PaimonError('CORRUPT_METADATA', `${what} is not a JSON object`);
  }
  const o = v as JsonObject;
  const id = num(o, 'id');
  const base = str(o, 'baseManifestList');
  const delta = str(o, 'deltaManifestList');
  if (id === null || base === null || delta === null) {
    throw new PaimonError('CORRUPT_METADATA', `${what} lacks id, baseManifestList or deltaManifestList`);
  }
  return {
    id,
    schemaId: num(o, 'schemaId') ?? undefined,
    timeMillis: num(o, 'timeMillis') ?? 0,
    baseManifestList: base,
    baseManifestListSize: num(o, 'baseManifestListSize'),
    deltaManifestList: delta,
    deltaManifestListSize: num(o, 'deltaManifestListSize'),
    changelogManifestList: str(o, 'changelogManifestList'),
    changelogManifestListSize: num(o, 'changelogManifestListSize'),
    indexManifest: str(o, 'indexManifest'),
    statistics: str(o, 'statistics'),
    commitUser: str(o, 'commitUser') ?? undefined,
  };
}

/** Read one metadata file; null when it vanished (expired or rolled back meanwhile). */
export async function readMetaRef(fileIO: FileIO, ref: MetaRef): Promise<SnapshotLike | null> {
  let buf: Buffer;
  try {
    buf = await fileIO.readFile(ref.path);
  } catch (e) {
    if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
    throw e;
  }
  return parseSnapshotLike(buf.toString('utf8'), ref.path);
}

// ---------------------------------------------------------------------------------------------
// Reachability
// ---------------------------------------------------------------------------------------------

const READ_RETRIES = 3;

/**
 * Read with Paimon's retry rule (OrphanFilesClean.retryReadingFiles): a missing file is
 * "nothing" (expired meanwhile); any other failure is retried and then aborts the clean,
 * because a file we could not read may reference files that look orphaned.
 */
async function readOrNothing<T>(read: () => Promise<T>, nothing: T): Promise<T> {
  let last: unknown;
  for (let i = 0; i < READ_RETRIES; i++) {
    try {
      return await read();
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return nothing;
      last = e;
    }
  }
  throw new PaimonError('STORAGE_ERROR', `orphan clean aborted: cannot read a used file: ${String((last as Error)?.message ?? last)}`, {
    cause: last,
  });
}

/**
 * Add to `used` every name in `candidates` that the snapshot reaches. Only candidate names
 * are kept, so memory is bounded by the candidate set (Paimon keeps the same filter for data
 * files). `seenManifests` avoids reading a manifest shared by many snapshots more than once.
 */
export async function collectUsed(
  s: SnapshotLike,
  reader: MaintenanceReader,
  candidates: ReadonlySet<string>,
  used: Set<string>,
  seenManifests: Set<string>,
): Promise<void> {
  const mark = (n: string | null | undefined): void => {
    if (n && candidates.has(n)) used.add(n);
  };
  const lists = [s.changelogManifestList, s.deltaManifestList, s.baseManifestList].filter(
    (x): x is string => typeof x === 'string' && x.length > 0,
  );
  const manifests: string[] = [];
  for (const l of lists) {
    mark(l);
    for (const m of await readOrNothing(() => reader.readManifestList(l), [])) {
      mark(m.fileName);
      if (!seenManifests.has(m.fileName)) {
        seenManifests.add(m.fileName);
        manifests.push(m.fileName);
      }
    }
  }
  for (const m of manifests) {
    for (const e of await readOrNothing(() => reader.readManifest(m), [])) {
      mark(e.fileName);
      for (const x of e.extraFiles) mark(x);
    }
  }
  if (s.indexManifest) {
    const idx = s.indexManifest;
    const refs = await readOrNothing(() => reader.readIndexManifest(idx), null);
    if (refs !== null) {
      mark(idx);
      for (const r of refs) mark(r.fileName);
    }
  }
  mark(s.statistics);
}

export interface OrphanScanResult {
  /** Candidates not reached by anything, in listing order. */
  orphans: OrphanCandidate[];
  candidateCount: number;
  /** Snapshots + tags + changelogs read, over all branches and all rounds. */
  metadataFilesRead: number;
  /** Generation rounds until two consecutive listings agreed (1 = nothing changed meanwhile). */
  rounds: number;
  branches: string[];
  /** Keys (metaRefKey) of every snapshot, tag and changelog file already accounted for. */
  knownRefs: Set<string>;
}

export interface OrphanScanOptions {
  fileIO: FileIO;
  layout: OrphanLayout;
  olderThanMillis: number;
  reader: MaintenanceReader;
  /** Bound on re-reads of the generation while writers keep committing. */
  maxRounds?: number;
  onProgress?: (p: { phase: 'listing' | 'reachability'; done: number }) => void;
}

/**
 * Steps 1-4 above. Deleting is the caller's job (bounded concurrency, dry run). Snapshot-dir
 * and changelog-dir candidates are never "used" by name: they are temp files by construction.
 */
export async function scanOrphans(opts: OrphanScanOptions): Promise<OrphanScanResult> {
  const { fileIO, layout, reader } = opts;
  const maxRounds = opts.maxRounds ?? 5;

  // Branches as of the listing: their snapshot/ and changelog/ temp files are candidates.
  const listedBranches = await listBranches(fileIO, layout.tableRoot);
  await checkBranchesHaveSchemas(fileIO, layout.tableRoot, listedBranches);

  const byName = new Map<string, OrphanCandidate[]>();
  let candidateCount = 0;
  for await (const c of listOrphanCandidates(fileIO, layout, listedBranches, opts.olderThanMillis)) {
    const list = byName.get(c.name);
    if (list) list.push(c);
    else byName.set(c.name, [c]);
    candidateCount++;
    if (opts.onProgress && candidateCount % 10_000 === 0) opts.onProgress({ phase: 'listing', done: candidateCount });
  }
  const names = new Set<string>();
  for (const [n, cs] of byName) if (cs.some((c) => c.area !== 'snapshot_dir' && c.area !== 'changelog_dir')) names.add(n);

  const used = new Set<string>();
  const seenManifests = new Set<string>();
  const readRefs = new Set<string>();
  let metadataFilesRead = 0;
  let rounds = 0;
  let branches = listedBranches;
  for (;;) {
    rounds++;
    // Read the generation after the listing: branches first, then each branch's files.
    branches = await listBranches(fileIO, layout.tableRoot);
    await checkBranchesHaveSchemas(fileIO, layout.tableRoot, branches);
    const refs = await listGeneration(fileIO, layout.tableRoot, branches);
    const fresh = refs.filter((r) => !readRefs.has(metaRefKey(r)));
    if (fresh.length === 0 && rounds > 1) break;
    if (rounds > maxRounds) {
      throw new PaimonError(
        'COMMIT_CONFLICT',
        `the table kept changing while its used files were collected (${maxRounds} rounds); nothing was deleted, retry later`,
      );
    }
    for (const r of fresh) {
      readRefs.add(metaRefKey(r));
      const s = await readMetaRef(fileIO, r);
      metadataFilesRead++;
      if (s !== null) await collectUsed(s, reader, names, used, seenManifests);
      if (opts.onProgress && metadataFilesRead % 100 === 0) opts.onProgress({ phase: 'reachability', done: metadataFilesRead });
    }
  }

  const orphans: OrphanCandidate[] = [];
  for (const [n, cs] of byName) {
    for (const c of cs) {
      if (c.area === 'snapshot_dir' || c.area === 'changelog_dir' || !used.has(n)) orphans.push(c);
    }
  }
  return { orphans, candidateCount, metadataFilesRead, rounds, branches, knownRefs: readRefs };
}

/**
 * Last look before deleting: re-list the generation and drop from `orphans` anything that a
 * snapshot, tag, changelog or branch created since the scan reaches. Returns the survivors
 * and how many metadata files were new.
 */
export async function recheckOrphans(
  opts: Pick<OrphanScanOptions, 'fileIO' | 'layout' | 'reader'>,
  scan: OrphanScanResult,
): Promise<{ orphans: OrphanCandidate[]; newRefs: number }> {
  const branches = await listBranches(opts.fileIO, opts.layout.tableRoot);
  await checkBranchesHaveSchemas(opts.fileIO, opts.layout.tableRoot, branches);
  const fresh = (await listGeneration(opts.fileIO, opts.layout.tableRoot, branches)).filter((r) => !scan.knownRefs.has(metaRefKey(r)));
  if (fresh.length === 0) return { orphans: scan.orphans, newRefs: 0 };
  const names = new Set(scan.orphans.filter((c) => c.area !== 'snapshot_dir' && c.area !== 'changelog_dir').map((c) => c.name));
  const used = new Set<string>();
  const seen = new Set<string>();
  for (const r of fresh) {
    scan.knownRefs.add(metaRefKey(r));
    const s = await readMetaRef(opts.fileIO, r);
    if (s !== null) await collectUsed(s, opts.reader, names, used, seen);
  }
  return { orphans: scan.orphans.filter((c) => !used.has(c.name) || c.area === 'snapshot_dir' || c.area === 'changelog_dir'), newRefs: fresh.length };
}
