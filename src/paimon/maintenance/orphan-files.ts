/**
 * The parts of Paimon's OrphanFilesClean that describe a table's layout and generation:
 * branches (and their schema check), the snapshot, tag and long-lived changelog files of every
 * branch, and the fields of those files that reachability needs. The clean itself (listing,
 * reachability, the bounded-memory anti-join, deleting) is procedures/files/orphan-clean.ts.
 */
import { PaimonError, isPaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { parseSnapshotFiles } from '../spec/snapshot.js';
import { join, name as baseName } from '../fs/path.js';
import type { SnapshotLike } from './types.js';

/** Never candidates (OrphanFilesClean.isManagedBlobPack). */
export const MANAGED_BLOB_SUFFIX = '.managed.blob';

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

/** Read one metadata file; null when it vanished (expired or rolled back meanwhile). */
export async function readMetaRef(fileIO: FileIO, ref: MetaRef): Promise<SnapshotLike | null> {
  let buf: Buffer;
  try {
    buf = await fileIO.readFile(ref.path);
  } catch (e) {
    if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
    throw e;
  }
  return parseSnapshotFiles(buf.toString('utf8'), ref.path);
}
