/**
 * The plan of a fast-forward (`FileSystemBranchManager.fastForward`), pure: from the metadata
 * files of the target branch (main, or the branch the table handle is on) and of the source
 * branch, which files to delete, which to write, and what the target would lose.
 *
 * Paimon's result: the target keeps its snapshots below the source's earliest snapshot E, its
 * schemas below E's schema id S and its tags on snapshots below E; everything else of the target
 * is replaced by the source's snapshot/, schema/ and tag/ files. Java deletes first and copies
 * after; here a file the target already holds with the same content is left alone, so that the
 * plan of a rerun after a crash is the remainder of the first plan.
 *
 * `losses` lists what the target would lose: its snapshots >= E that the source does not hold
 * byte for byte (commits made after the fork: their data would become orphans), schemas and
 * tags overwritten or deleted. The procedure refuses a plan with losses unless forced.
 */
import { isDeepStrictEqual } from 'node:util';

export interface TagFile {
  /** The tagged snapshot id. */
  snapshotId: number;
  bytes: Buffer;
}

/** The metadata files of one branch the plan compares. */
export interface BranchFiles {
  /** Snapshot files by id; null for a target snapshot below E (its content does not matter). */
  snapshots: ReadonlyMap<number, Buffer | null>;
  schemas: ReadonlyMap<number, Buffer>;
  tags: ReadonlyMap<string, TagFile>;
  /** Whether snapshot/EARLIEST exists. */
  hasEarliestHint: boolean;
}

/** Target metadata a fast-forward deletes or overwrites with other content. */
export interface FastForwardLosses {
  /** Snapshots >= E the source does not hold identically: commits made after the fork. */
  snapshots: number[];
  schemas: number[];
  tags: string[];
}

export function hasLosses(l: FastForwardLosses): boolean {
  return l.snapshots.length + l.schemas.length + l.tags.length > 0;
}

export interface FastForwardPlan {
  /** The source's earliest snapshot id (E). */
  earliestSnapshotId: number;
  /** The schema id of the source's earliest snapshot (S). */
  earliestSchemaId: number;
  /** The source's latest snapshot id: the target's latest afterwards. */
  latestSnapshotId: number;
  /** Target snapshots to delete (>= E and not held identically by the source), newest first. */
  deleteSnapshots: number[];
  /** LATEST before the deletions (the newest snapshot that stays), null when none stays. */
  latestBeforeDelete: number | null;
  /** Source snapshots the target lacks (or holds with other content), ascending. */
  writeSnapshots: number[];
  /** Target schemas >= S the source does not have, newest first. */
  deleteSchemas: number[];
  /** Source schemas the target lacks or holds with other content, ascending. */
  writeSchemas: number[];
  /** Target tags on snapshots >= E the source does not have. */
  deleteTags: string[];
  /** Source tags the target lacks or holds with other content. */
  writeTags: string[];
  /** EARLIEST to write at the end (when either side has the hint), else null. */
  earliestHint: number | null;
  /** What the target would lose (see hasLosses). */
  losses: FastForwardLosses;
  /** True when nothing would change. */
  noop: boolean;
}

/** Equal metadata files: the same bytes, or the same JSON (a copy written by another writer). */
export function sameMetadata(a: Buffer, b: Buffer): boolean {
  if (a.equals(b)) return true;
  try {
    return isDeepStrictEqual(JSON.parse(a.toString('utf8')), JSON.parse(b.toString('utf8')));
  } catch {
    return false;
  }
}

/**
 * Plan the fast-forward of `target` to `source`. `earliestSchemaId` is the schema id of the
 * source's earliest snapshot (the caller parsed it).
 */
export function planFastForward(target: BranchFiles, source: BranchFiles, earliestSchemaId: number): FastForwardPlan {
  const sourceIds = [...source.snapshots.keys()].sort((a, b) => a - b);
  if (sourceIds.length === 0) throw new Error('planFastForward: the source branch has no snapshot');
  const E = sourceIds[0]!;
  const S = earliestSchemaId;
  const latest = sourceIds[sourceIds.length - 1]!;

  const deleteSnapshots: number[] = [];
  const kept: number[] = [];
  for (const [id, bytes] of target.snapshots) {
    const other = source.snapshots.get(id);
    if (id >= E && (other === undefined || other === null || bytes === null || !sameMetadata(bytes, other))) deleteSnapshots.push(id);
    else kept.push(id);
  }
  deleteSnapshots.sort((a, b) => b - a);
  const writeSnapshots = sourceIds.filter((id) => {
    const mine = target.snapshots.get(id);
    const theirs = source.snapshots.get(id);
    return mine === undefined || mine === null || theirs === undefined || theirs === null || !sameMetadata(mine, theirs);
  });

  const deleteSchemas = [...target.schemas.keys()].filter((id) => id >= S && !source.schemas.has(id)).sort((a, b) => b - a);
  const overwrittenSchemas: number[] = [];
  const writeSchemas = [...source.schemas.keys()]
    .filter((id) => {
      const mine = target.schemas.get(id);
      if (mine === undefined) return true;
      if (sameMetadata(mine, source.schemas.get(id)!)) return false;
      overwrittenSchemas.push(id);
      return true;
    })
    .sort((a, b) => a - b);

  const deleteTags = [...target.tags.entries()]
    .filter(([name, t]) => t.snapshotId >= E && !source.tags.has(name))
    .map(([name]) => name)
    .sort();
  const overwrittenTags: string[] = [];
  const writeTags = [...source.tags.entries()]
    .filter(([name, t]) => {
      const mine = target.tags.get(name);
      if (mine === undefined) return true;
      if (sameMetadata(mine.bytes, t.bytes)) return false;
      overwrittenTags.push(name);
      return true;
    })
    .map(([name]) => name)
    .sort();

  const losses: FastForwardLosses = {
    snapshots: [...deleteSnapshots].sort((a, b) => a - b),
    schemas: [...deleteSchemas, ...overwrittenSchemas].sort((a, b) => a - b),
    tags: [...deleteTags, ...overwrittenTags].sort(),
  };

  const finalIds = [...kept, ...writeSnapshots];
  const earliestHint = target.hasEarliestHint || source.hasEarliestHint ? Math.min(...finalIds) : null;
  const latestBeforeDelete = deleteSnapshots.length === 0 ? null : kept.length === 0 ? null : Math.max(...kept);
  const noop =
    deleteSnapshots.length === 0 &&
    writeSnapshots.length === 0 &&
    deleteSchemas.length === 0 &&
    writeSchemas.length === 0 &&
    deleteTags.length === 0 &&
    writeTags.length === 0;
  return {
    earliestSnapshotId: E,
    earliestSchemaId: S,
    latestSnapshotId: latest,
    deleteSnapshots,
    latestBeforeDelete,
    writeSnapshots,
    deleteSchemas,
    writeSchemas,
    deleteTags,
    writeTags,
    earliestHint,
    losses,
    noop,
  };
}
