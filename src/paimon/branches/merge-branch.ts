/**
 * Paimon 2.0's branch merge (`FileSystemBranchManager.mergeBranch` with `BranchMergeHandler`):
 * the data files live in the source branch's latest snapshot that the target's latest snapshot
 * does not hold are committed to the target as one APPEND snapshot. No file is copied: both
 * branches then reference the same data files.
 *
 * Paimon has no record of where a branch forked, so the merge is only defined when both sides
 * have a complete append-only history; each rule below is checked in Java's order and a failure
 * names the rule:
 * 1. the names differ and are not blank; a non-main branch exists; both sides have a snapshot;
 * 2. complete history on each side: the earliest snapshot is 1, no id up to the latest is
 *    missing, and every snapshot is APPEND or ANALYZE (no expiry, compaction or overwrite);
 * 3. no primary keys on either side; 4. no data evolution; 5. equal row-tracking settings;
 * 6. equal fields in the latest schemas;
 * 7. (when there is something to merge) every schema id of a merged file exists in the target
 *    with the same content as in the source.
 * Paimon 1.4 has no merge; this is 2.0's behaviour for any table.
 */
import { PaimonError } from '../errors.js';
import { fileIdentifier } from '../spec/file-entry.js';
import type { ManifestEntry } from '../spec/manifest-entry.js';
import { FIRST_SNAPSHOT_ID, type Snapshot } from '../spec/snapshot.js';
import type { TableSchema } from '../spec/table-schema.js';
import { isMainBranch } from '../table/branch.js';
import type { FileStoreTable } from '../table/file-store-table.js';
import { isDeepStrictEqual } from 'node:util';

export interface MergeBranchPlan {
  source: FileStoreTable;
  target: FileStoreTable;
  sourceLatest: Snapshot;
  targetLatest: Snapshot;
  /** Source files the target does not hold (ADD entries), in the source's manifest order. */
  files: ManifestEntry[];
}

function refuse(rule: string, message: string): never {
  throw new PaimonError('INVALID_ARGUMENT', `${message} (merge_branch rule: ${rule})`);
}

async function checkCompleteAppendOnly(t: FileStoreTable): Promise<void> {
  const sm = t.snapshotManager();
  const earliest = await sm.earliestSnapshotId();
  const latest = await sm.latestSnapshotId();
  if (earliest === null || latest === null) return;
  const rule = 'complete append-only history';
  if (earliest !== FIRST_SNAPSHOT_ID) {
    refuse(rule, `Cannot merge: branch '${t.branch}' does not start at snapshot ${FIRST_SNAPSHOT_ID} (earliest is ${earliest}).`);
  }
  for (let id = FIRST_SNAPSHOT_ID; id <= latest; id++) {
    const s = await sm.tryGetSnapshot(id);
    if (s === null) refuse(rule, `Cannot merge: snapshot ${id} is missing on branch '${t.branch}'.`);
    if (s.commitKind !== 'APPEND' && s.commitKind !== 'ANALYZE') {
      refuse(rule, `Cannot merge: snapshot ${id} on branch '${t.branch}' has commit kind '${s.commitKind}'.`);
    }
  }
}

function bool(v: string | undefined): boolean {
  return (v ?? '').trim().toLowerCase() === 'true';
}

/** Whether a branch's latest schema enables row tracking (the merge commit must then assign row ids). */
export function rowTrackingEnabled(schema: TableSchema): boolean {
  return bool(schema.options['row-tracking.enabled']);
}

/**
 * Check every rule and compute the files to merge. `open(branch)` opens the table on a branch
 * (main included); it is called for the source and the target.
 */
export async function planMergeBranch(
  sourceBranch: string,
  targetBranch: string,
  open: (branch: string) => Promise<FileStoreTable>,
  branchExists: (branch: string) => Promise<boolean>,
): Promise<MergeBranchPlan> {
  if (sourceBranch.trim() === '') refuse('names', `Source branch name '${sourceBranch}' is blank.`);
  if (targetBranch.trim() === '') refuse('names', `Target branch name '${targetBranch}' is blank.`);
  if (sourceBranch === targetBranch) refuse('names', `Cannot merge branch '${sourceBranch}' into itself.`);
  for (const b of [sourceBranch, targetBranch]) {
    if (!isMainBranch(b) && !(await branchExists(b))) throw new PaimonError('BRANCH_NOT_FOUND', `Branch '${b}' doesn't exist.`);
  }
  const source = await open(sourceBranch);
  const target = await open(targetBranch);
  const sourceLatest = await source.snapshotManager().latestSnapshot();
  if (sourceLatest === null) refuse('snapshots', `Cannot merge branch '${sourceBranch}', because it does not have snapshot.`);
  const targetLatest = await target.snapshotManager().latestSnapshot();
  if (targetLatest === null) refuse('snapshots', `Cannot merge into branch '${targetBranch}', because it does not have snapshot.`);

  await checkCompleteAppendOnly(source);
  await checkCompleteAppendOnly(target);
  for (const t of [source, target]) {
    if (t.schema.primaryKeys.length > 0) {
      throw new PaimonError(
        'UNSUPPORTED_TABLE',
        `Branch merge is only supported for append-only tables, but branch '${t.branch}' has primary keys (merge_branch rule: append-only table).`,
      );
    }
  }
  for (const t of [source, target]) {
    if (bool(t.schema.options['data-evolution.enabled'])) {
      throw new PaimonError('UNSUPPORTED_TABLE', `Branch merge is not supported for data-evolution tables (branch '${t.branch}') (merge_branch rule: no data evolution).`);
    }
  }
  const rs = rowTrackingEnabled(source.schema);
  const rt = rowTrackingEnabled(target.schema);
  if (rs !== rt) {
    refuse('row tracking', `Cannot merge branch '${sourceBranch}' into '${targetBranch}': row-tracking settings must match (source=${rs}, target=${rt}).`);
  }
  if (!isDeepStrictEqual(source.schema.fields, target.schema.fields)) {
    refuse('latest schema', `Cannot merge branch '${sourceBranch}' into '${targetBranch}', schema mismatch.`);
  }

  const targetIds = new Set((await target.newScan().readLiveEntries(targetLatest)).map(fileIdentifier));
  const files = (await source.newScan().readLiveEntries(sourceLatest)).filter((e) => e.kind === 'ADD' && !targetIds.has(fileIdentifier(e)));

  if (files.length > 0) {
    const sourceSchemas = source.schemaManager();
    const targetSchemas = target.schemaManager();
    for (const id of new Set(files.map((e) => Number(e.file.schemaId)))) {
      if (!(await targetSchemas.schemaExists(id))) {
        refuse(
          'schema history',
          `Cannot merge branch '${sourceBranch}' into '${targetBranch}', because target branch does not contain schema id ${id} required by source files.`,
        );
      }
      if (!isDeepStrictEqual(await sourceSchemas.schema(id), await targetSchemas.schema(id))) {
        refuse('schema history', `Cannot merge branch '${sourceBranch}' into '${targetBranch}', schema history mismatch for schema id ${id}.`);
      }
    }
  }
  return { source, target, sourceLatest, targetLatest, files };
}
