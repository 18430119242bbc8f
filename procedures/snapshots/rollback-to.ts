/**
 * Destructive rollback: Flink's `rollback_to` and Spark's `rollback` (the same operation,
 * Paimon's Table.rollbackTo with RollbackHelper.cleanLargerThan, 1.2+ semantics). Later
 * snapshot files, later long-lived changelog files and later tags are deleted; data files,
 * manifests and index files are left for remove_orphan_files. The order is in
 * src/paimon/maintenance/rollback-plan.ts (LATEST hint first, newest snapshot first).
 *
 * Safety: the plan is pinned to the latest snapshot id and the tag list; both are re-read
 * just before the first write, and a difference is CONCURRENT_MODIFICATION with nothing
 * changed. Writers must still be stopped first (Paimon's own advice): a writer that commits
 * after the LATEST hint moved would build on the removed history; we detect a snapshot
 * above the pinned latest afterwards and report it.
 */
import type { RollbackInstant } from '../../src/paimon/catalog/catalog.js';
import type { Identifier } from '../../src/paimon/catalog/identifier.js';
import { isMainBranch } from '../../src/paimon/table/branch.js';
import { PaimonError, isPaimonError } from '../../src/paimon/errors.js';
import { commitHint, EARLIEST, LATEST, listVersionedFileStatus, readHint } from '../../src/paimon/table/hint-file.js';
import { isNoopRollback, planRollback, type RollbackPlan, type RollbackTarget } from '../../src/paimon/maintenance/rollback-plan.js';
import type { Snapshot } from '../../src/paimon/spec/snapshot.js';
import { parseTag, trimToSnapshot } from '../../src/paimon/spec/tag.js';
import { SNAPSHOT_PREFIX } from '../../src/paimon/table/snapshot-manager.js';
import type { TableMaintenanceReader, TagInfo } from '../../src/paimon/table/maintenance-reader.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult, ResultRow } from '../framework/result.js';
import type { ResultColumnSpec } from '../framework/signature.js';
import { compactIdRanges, DeletionTally } from '../framework/file-deleter.js';
import { generationChanges, readGeneration, type Generation } from '../framework/generation.js';
import { describeNearbyNames, describeNearbySnapshots } from '../framework/nearby.js';
import { quote } from '../framework/quote.js';

export const ROLLBACK_RESULT_COLUMNS: readonly ResultColumnSpec[] = [
  { name: 'previous_snapshot_id', type: 'bigint', description: "Latest snapshot id before the rollback (Paimon's result)." },
  { name: 'current_snapshot_id', type: 'bigint', description: "Snapshot id the table now ends at (Paimon's result)." },
  { name: 'changed', type: 'boolean', description: 'Whether anything on disk changed.' },
  { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id the plan was made from.' },
  { name: 'target_tag', type: 'string', description: 'The tag rolled back to, when the target was (or resolved to) a tag.' },
  { name: 'removed_snapshot_ids', type: 'string', description: "Snapshot files removed, as ranges ('12-20')." },
  { name: 'removed_tags', type: 'string', description: 'Tags removed (comma-separated), those on later snapshots.' },
  { name: 'removed_changelog_ids', type: 'string', description: 'Long-lived changelog files removed, as ranges.' },
  { name: 'restored_snapshot', type: 'boolean', description: 'Whether the target snapshot file was rewritten from its tag (it had expired).' },
  { name: 'deleted_files', type: 'bigint', description: 'Metadata files deleted (snapshots, changelogs, tags); data files are never deleted by rollback.' },
  { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind (snapshot, changelog_meta, tag).' },
];

export interface RollbackState {
  generation: Generation;
  tags: TagInfo[];
  snapshotIds: Set<number>;
  changelogIds: number[];
  /** Value of snapshot/EARLIEST, if readable. */
  earliestHint: number | null;
}

export async function readRollbackState(r: TableMaintenanceReader): Promise<RollbackState> {
  const { fileIO } = r.table;
  const snapshotDir = r.table.snapshotManager().snapshotDirectory();
  const generation = await readGeneration(r);
  const snapshotIds = new Set<number>();
  for await (const { version } of listVersionedFileStatus(fileIO, snapshotDir, SNAPSHOT_PREFIX)) snapshotIds.add(version);
  const earliestHint = await readHint(fileIO, snapshotDir, EARLIEST);
  return { generation, tags: await r.tags(), snapshotIds, changelogIds: await r.table.changelogManager().sortedChangelogIds(), earliestHint };
}

/** A missing target's error, told what exists near it (the snapshot range and nearest ids, the tags spelt like it). */
export function withNearbyTargets(e: unknown, state: Pick<RollbackState, 'snapshotIds' | 'tags'>, target: RollbackTarget): unknown {
  if (target.kind === 'tag' && isPaimonError(e, 'TAG_NOT_FOUND')) {
    const names = state.tags.map((x) => x.name);
    return new PaimonError('TAG_NOT_FOUND', `Tag ${quote(target.name)} doesn't exist.${describeNearbyNames(names, target.name, TAG_WORDS)}`, { cause: e });
  }
  if (target.kind === 'snapshot' && isPaimonError(e, 'SNAPSHOT_NOT_FOUND')) {
    const tagged = state.tags.filter((x) => x.snapshot.id < target.id).sort((a, b) => b.snapshot.id - a.snapshot.id)[0];
    const tagHint = tagged !== undefined && !state.snapshotIds.has(tagged.snapshot.id) ? ` Tag ${quote(tagged.name)} still holds expired snapshot ${tagged.snapshot.id}.` : '';
    return new PaimonError('SNAPSHOT_NOT_FOUND', `Rollback snapshot '${target.id}' doesn't exist.${describeNearbySnapshots(state.snapshotIds, target.id)}${tagHint}`, { cause: e });
  }
  return e;
}

const TAG_WORDS = { one: 'tag', many: 'tags' } as const;

export function makeRollbackPlan(state: RollbackState, target: RollbackTarget): RollbackPlan {
  // The snapshot files present decide what to delete, not the hints: after a rollback that
  // was killed midway, LATEST already names the target while later snapshot files remain.
  let latestId = state.generation.latestId;
  let earliestId = state.generation.earliestId;
  for (const id of state.snapshotIds) {
    if (latestId === null || id > latestId) latestId = id;
    if (earliestId === null || id < earliestId) earliestId = id;
  }
  let plan: RollbackPlan;
  try {
    plan = planRollback(
      {
        earliestId,
        latestId,
        snapshotExists: (id) => state.snapshotIds.has(id),
        tags: state.tags.map((x) => ({ name: x.name, snapshotId: x.snapshot.id })),
        changelogIds: state.changelogIds,
      },
      target,
    );
  } catch (e) {
    throw withNearbyTargets(e, state, target);
  }
  // A rerun after a kill that had restored the target below the old earliest: EARLIEST still
  // names a snapshot that is gone or later than the target; point it at the target.
  if (plan.earliestHint === null && state.earliestHint !== null && state.earliestHint > plan.target.snapshotId) {
    plan.earliestHint = plan.target.snapshotId;
  }
  return plan;
}

/** The snapshot a tag holds (Tag.trimToSnapshot), from the bytes read when planning. */
function snapshotOfTag(tag: TagInfo): Snapshot {
  return trimToSnapshot(parseTag(tag.raw.toString('utf8'), tag.path));
}

/** Execute a rollback plan in the crash-safe order; returns the result row. */
export async function executeRollback(
  r: TableMaintenanceReader,
  state: RollbackState,
  plan: RollbackPlan,
  dryRun: boolean,
  ctx: ProcedureContext,
): Promise<ResultRow> {
  const t = r.table;
  const snapshots = t.snapshotManager();
  const changelogs = t.changelogManager();
  const tags = t.tagManager();
  const tally = new DeletionTally();
  const row = (changed: boolean): ResultRow => ({
    previous_snapshot_id: plan.previousLatestId,
    current_snapshot_id: plan.target.snapshotId,
    changed,
    dry_run: dryRun,
    pinned_snapshot_id: state.generation.latestId,
    target_tag: plan.target.tagName,
    removed_snapshot_ids: compactIdRanges(plan.deleteSnapshotIds),
    removed_tags: plan.deleteTags.join(','),
    removed_changelog_ids: compactIdRanges(plan.deleteChangelogIds),
    restored_snapshot: plan.restoreSnapshotFromTag !== null,
    deleted_files: tally.files,
    deleted_by_kind: tally.toJson(),
  });
  const sizeOf = async (p: string): Promise<number | null> => (await t.fileIO.getStatus(p))?.size ?? null;

  if (dryRun) {
    for (const id of plan.deleteSnapshotIds) {
      const s = await sizeOf(snapshots.snapshotPath(id));
      if (s !== null) tally.add('snapshot', s);
    }
    for (const id of plan.deleteChangelogIds) {
      const s = await sizeOf(changelogs.longLivedChangelogPath(id));
      if (s !== null) tally.add('changelog_meta', s);
    }
    for (const name of plan.deleteTags) {
      const s = await sizeOf(tags.tagPath(name));
      if (s !== null) tally.add('tag', s);
    }
    return row(false);
  }
  if (isNoopRollback(plan)) return row(false);

  // Pin check right before the first write: nothing may have moved since the plan was made.
  const now = await readGeneration(r);
  const changes = generationChanges(state.generation, now, { latest: true, earliest: true, tags: true });
  if (changes.length > 0) {
    throw new ProcedureError(
      'CONCURRENT_MODIFICATION',
      `rollback on ${t.identifier} refused: ${changes.join('; ')} since the plan was made. Nothing was changed; stop the writers and retry.`,
    );
  }
  ctx.throwIfAborted();
  if (ctx.catalog.supportsVersionManagement === true && ctx.catalog.rollbackTo !== undefined) {
    // The catalog owns the table's versions (REST): it rolls back and removes what follows, as
    // Java's SnapshotManager.rollback hands the Instant to the catalog; the plan only reports.
    // fromSnapshot makes the server refuse if a writer committed since the pin check.
    ctx.progress({ phase: 'commit', message: 'rollback through the catalog' });
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    const instant: RollbackInstant = plan.target.tagName !== null ? { kind: 'tag', tagName: plan.target.tagName } : { kind: 'snapshot', snapshotId: plan.target.snapshotId };
    const id: Identifier = { database: t.database, table: t.name, ...(isMainBranch(t.branch) ? {} : { branch: t.branch }) };
    await ctx.catalog.rollbackTo(id, instant, state.generation.latestId);
    return row(true);
  }
  ctx.progress({ phase: 'commit', message: 'LATEST hint first, then snapshot files newest first' });
  ctx.markCommitted();
  ctx.reportAffected(t.identifier);

  // 1. A tag whose snapshot expired: put the snapshot file back first, from the tag as read
  //    when planning (RollbackHelper.createSnapshotFileIfNeeded).
  if (plan.restoreSnapshotFromTag !== null) {
    const tag = state.tags.find((x) => x.name === plan.restoreSnapshotFromTag);
    if (!tag) throw new PaimonError('TAG_NOT_FOUND', `Tag '${plan.restoreSnapshotFromTag}' doesn't exist.`);
    await snapshots.createSnapshotFileIfNeeded(snapshotOfTag(tag));
  }
  // 2. LATEST first, so new readers stop at the target.
  await snapshots.commitLatestHint(plan.latestHint);
  // 3. Snapshot files, newest first.
  for (const id of plan.deleteSnapshotIds) {
    const p = snapshots.snapshotPath(id);
    const size = await sizeOf(p);
    if (await t.fileIO.delete(p)) tally.add('snapshot', size ?? 0);
  }
  // 4. EARLIEST when the target was restored below the old earliest.
  if (plan.earliestHint !== null) await snapshots.commitEarliestHint(plan.earliestHint);
  // 5. Long-lived changelogs: hint, then files newest first.
  if (plan.changelogLatestHint !== null) await commitHint(t.fileIO, changelogs.changelogDirectory(), LATEST, plan.changelogLatestHint);
  for (const id of plan.deleteChangelogIds) {
    const p = changelogs.longLivedChangelogPath(id);
    const size = await sizeOf(p);
    if (await t.fileIO.delete(p)) tally.add('changelog_meta', size ?? 0);
  }
  // 6. Tags on later snapshots, newest first.
  for (const name of plan.deleteTags) {
    const p = tags.tagPath(name);
    const size = await sizeOf(p);
    if (await t.fileIO.delete(p)) tally.add('tag', size ?? 0);
  }
  // A writer that committed during the rollback built on the removed history: say so loudly.
  const after = await snapshots.latestSnapshotId();
  if (after !== null && after > plan.latestHint) {
    ctx.warn(
      `rollback: snapshot ${after} was committed by another writer while rolling back to ${plan.latestHint}; ` +
        'it is now the latest snapshot. Stop writers and roll back again.',
    );
  }
  ctx.warn('rollback: data files of the removed snapshots are kept; run remove_orphan_files to reclaim them, and reset consumers that were past the target.', 1105);
  return row(true);
}

export async function runRollback(
  tableArg: string,
  target: RollbackTarget,
  dryRun: boolean,
  ctx: ProcedureContext,
): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(tableArg);
  const r = t.maintenanceReader();
  const state = await readRollbackState(r);
  const plan = makeRollbackPlan(state, target);
  const row = await executeRollback(r, state, plan, dryRun, ctx);
  return {
    rows: [row],
    info: `${dryRun ? 'would roll back' : 'rolled back'} ${t.identifier} from snapshot ${plan.previousLatestId} to ${plan.target.snapshotId}`,
  };
}

function blank(s: string | null): boolean {
  return s === null || s.trim() === '';
}

/** The argument names of one rollback procedure, as the user types them (for messages). */
export interface RollbackTargetNames {
  procedure: string;
  snapshot: string;
  tag: string;
  version?: string;
}

/** Exactly one of version / snapshot / tag (Spark's rule; we apply it to Flink's name too). */
export function rollbackTarget(
  args: { version?: string | null; snapshot: bigint | null; tag: string | null },
  names: RollbackTargetNames = { procedure: 'rollback', version: 'version', snapshot: 'snapshot', tag: 'tag' },
): RollbackTarget {
  const version = args.version ?? null;
  const given = [
    !blank(version) ? `${names.version ?? 'version'} => ${quote(version!)}` : null,
    args.snapshot !== null ? `${names.snapshot} => ${args.snapshot}` : null,
    !blank(args.tag) ? `${names.tag} => ${quote(args.tag!)}` : null,
  ].filter((g): g is string => g !== null);
  if (given.length !== 1) {
    const accepted = [names.version, names.snapshot, names.tag].filter((n): n is string => n !== undefined).join(', ');
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `${names.procedure} needs exactly one of ${accepted}; ${given.length === 0 ? 'none was given' : `got ${given.join(' and ')}`}.`,
    );
  }
  if (!blank(version)) {
    const v = version!.trim();
    // Paimon: an all-digit version is a snapshot id, anything else a tag name. The digits go
    // through bigint, so an id past 2^53 is refused as written instead of rounded.
    return /^\d+$/.test(v) ? snapshotTarget(BigInt(v), names.version ?? 'version') : { kind: 'tag', name: v };
  }
  if (args.snapshot !== null) return snapshotTarget(args.snapshot, names.snapshot);
  return { kind: 'tag', name: args.tag!.trim() };
}

function snapshotTarget(id: bigint, argument: string): RollbackTarget {
  if (id <= 0n || id > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new PaimonError('INVALID_ARGUMENT', `${argument} ${id} is not a valid snapshot id (1 to ${Number.MAX_SAFE_INTEGER})`);
  }
  return { kind: 'snapshot', id: Number(id) };
}

const DRY_RUN = { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be removed, change nothing.' } as const;
const TABLE = { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." } as const;
const DESCRIPTION =
  "Roll the table back to a snapshot or tag, destructively (Paimon's rollbackTo): later snapshots, long-lived changelogs and tags are removed; data files are kept for remove_orphan_files. Stop writers first.";

/** Flink's `rollback_to(table, tag, snapshot_id)`. */
export const rollbackTo = defineProcedure({
  name: 'rollback_to',
  description: DESCRIPTION,
  params: [
    TABLE,
    { name: 'tag', aliases: ['tagName'], type: 'string', description: 'Tag to roll back to.' },
    { name: 'snapshot_id', aliases: ['snapshot', 'snapshotId'], type: 'bigint', description: 'Snapshot id to roll back to.' },
    DRY_RUN,
  ],
  resultColumns: ROLLBACK_RESULT_COLUMNS,
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runRollback(args.table, rollbackTarget({ snapshot: args.snapshot_id, tag: args.tag }, { procedure: 'rollback_to', snapshot: 'snapshot_id', tag: 'tag' }), args.dry_run, ctx),
});

/** Spark's `rollback(table, version, snapshot, tag)`. */
export const rollback = defineProcedure({
  name: 'rollback',
  description: DESCRIPTION + " Spark's name and argument order; `version` is a snapshot id when all digits, else a tag.",
  params: [
    TABLE,
    { name: 'version', type: 'string', description: 'Deprecated in Paimon: snapshot id (all digits) or tag name.' },
    { name: 'snapshot', aliases: ['snapshot_id'], type: 'bigint', description: 'Snapshot id to roll back to.' },
    { name: 'tag', type: 'string', description: 'Tag to roll back to.' },
    DRY_RUN,
  ],
  resultColumns: ROLLBACK_RESULT_COLUMNS,
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runRollback(args.table, rollbackTarget({ version: args.version, snapshot: args.snapshot, tag: args.tag }), args.dry_run, ctx),
});
