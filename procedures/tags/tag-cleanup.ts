/**
 * Deleting tags with their files (delete_tag, expire_tags): plan every deletion first
 * (src/paimon/tags/tag-deletion.ts), pinned to a generation of the branch (latest and earliest
 * snapshot, tags) and the table's branch list; then, per tag, re-check the pin (the first check
 * reads every tag again, later ones the tag names and snapshot ids), rename the tag file to
 * deleting-tag-<name> (Paimon no longer sees the tag), delete the files only it kept alive (data
 * files, then manifests and index files, then manifest lists, index manifests and statistics),
 * and last the renamed file. A crash never leaves a tag naming missing files; and since the
 * renamed file survives until the end, the next delete_tag or expire_tags on the branch finishes
 * an interrupted cleanup first (Paimon deletes the tag file first: a crash after it leaves data
 * files that a DELETE entry still names, which no orphan clean ever takes). A dry run plans and
 * sizes the same files and changes nothing.
 */
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { deleteFiles, DeletionTally } from '../framework/file-deleter.js';
import { generationChanges, readGeneration, type Generation } from '../framework/generation.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { cachingReader, planTagDeletions, type TagDeletionStep } from '../../src/paimon/tags/tag-deletion.js';
import { collectProtection, deletingTagPath, otherBranches, readTagDeletionState } from '../../src/paimon/tags/tag-lifecycle.js';
import type { TableMaintenanceReader } from '../../src/paimon/table/maintenance-reader.js';

export interface TagDeletionOutcome {
  step: TagDeletionStep;
  tally: DeletionTally;
}

export interface TagDeletionRun {
  outcomes: TagDeletionOutcome[];
  pinnedSnapshotId: number | null;
  warnings: string[];
}

const PIN = { latest: true, earliest: true, tags: true } as const;

async function pinChanges(r: TableMaintenanceReader, t: FileStoreTable, expected: Generation, branches: string[], full: boolean): Promise<string[]> {
  let changes: string[];
  if (full) changes = generationChanges(expected, await readGeneration(r), PIN);
  else {
    // Between the tags of one call: ids and tag names only (reading every tag file again per
    // deleted tag would make expiring hundreds of tags quadratic in tag reads).
    const snapshots = t.snapshotManager();
    const names = new Map<string, number>();
    for await (const n of t.tagManager().tagNames()) names.set(n, expected.tags.get(n) ?? -1);
    const now: Generation = { latestId: await snapshots.latestSnapshotId(), earliestId: await snapshots.earliestSnapshotId(), tags: names, consumers: expected.consumers };
    changes = generationChanges(expected, now, PIN);
  }
  const nowBranches = await otherBranches(t);
  if (nowBranches.join('\u0000') !== branches.join('\u0000')) changes.push(`branches changed from [${branches.join(', ')}] to [${nowBranches.join(', ')}]`);
  return changes;
}

/**
 * Delete `names` (existing tags of `t`'s branch, checked by the caller) in order, as
 * `procedure` for messages. Throws CONCURRENT_MODIFICATION when the pin moved, saying whether
 * some tags were already deleted.
 */
export async function runTagDeletions(procedure: string, t: FileStoreTable, names: readonly string[], ctx: ProcedureContext, dryRun: boolean): Promise<TagDeletionRun> {
  const r = t.maintenanceReader();
  ctx.progress({ phase: 'plan', message: `${names.length} tag(s)` });
  const generation = await readGeneration(r);
  const branches = await otherBranches(t);
  const state = await readTagDeletionState(t);
  const reader = cachingReader(r);
  const needsCleanup = [...state.interrupted, ...names.map((n) => state.tags.find((x) => x.name === n && !x.interrupted))].some(
    (tag) => tag !== undefined && !state.snapshotIds.has(tag.snapshot.id),
  );
  // Protection reads every snapshot's delta: only worth it when some tag's snapshot has expired.
  const protection = needsCleanup ? await collectProtection(t, reader) : { dataKeys: new Set<string>(), metadataNames: new Set<string>() };
  // Interrupted deletions first: their tags were gone for Paimon before any tag of this call.
  const plan = await planTagDeletions([...(dryRun ? [] : state.interrupted), ...names], state, protection, reader, r);
  for (const i of dryRun ? [] : state.interrupted) ctx.warn(`${procedure}: finishing the interrupted deletion of tag '${i.name}' (snapshot ${i.snapshot.id}) first`);
  for (const w of plan.warnings) ctx.warn(`${procedure}: ${w}`);

  const expected: Generation = { ...generation, tags: new Map(generation.tags) };
  const outcomes: TagDeletionOutcome[] = [];
  let committed = false;
  for (const step of plan.steps) {
    ctx.throwIfAborted();
    const tally = new DeletionTally();
    outcomes.push({ step, tally });
    if (step.snapshotId === null) continue;
    const tagPath = t.tagManager().tagPath(step.name);
    const deletingPath = deletingTagPath(t.tagManager(), step.name);
    let tagBytes = 0;
    if (step.interrupted) {
      // Renamed by the interrupted call: that call's pin held then; nothing can reach the files again.
      tagBytes = (await t.fileIO.getStatus(deletingPath))?.size ?? 0;
      if (!committed) {
        committed = true;
        ctx.markCommitted();
      }
    } else if (!dryRun) {
      const changes = await pinChanges(r, t, expected, branches, !committed);
      if (changes.length > 0) {
        const done = outcomes.filter((o) => o.step !== step && o.step.snapshotId !== null).map((o) => `'${o.step.name}'`);
        throw new ProcedureError(
          'CONCURRENT_MODIFICATION',
          `${procedure} on ${t.identifier} stopped before deleting tag '${step.name}': ${changes.join('; ')}. ` +
            (committed ? `Tag(s) ${done.join(', ')} were already deleted; rerun the call for the rest.` : 'Nothing was changed.'),
          { committed },
        );
      }
      const st = await t.fileIO.getStatus(tagPath);
      // A leftover of an interrupted object-store rename (copy made, source kept) is replaced.
      if (st !== null && !(await t.fileIO.rename(tagPath, deletingPath))) {
        await t.fileIO.delete(deletingPath);
        if (!(await t.fileIO.rename(tagPath, deletingPath))) throw new ProcedureError('CONCURRENT_MODIFICATION', `${procedure} on ${t.identifier}: tag '${step.name}' is being deleted by another call.`, { committed });
      }
      tagBytes = st?.size ?? 0;
      expected.tags.delete(step.name);
      if (!committed) {
        committed = true;
        ctx.markCommitted();
      }
    }
    if (!dryRun) {
      // The tag is gone for Paimon: its metastore partition goes next, before the files, as Java
      // notifies right after the tag file (an interrupted call may have stopped before it did).
      await t.tagManager().tagPartitionChanged(step.name, 'deleted');
    } else {
      const st = await t.fileIO.getStatus(tagPath);
      if (st !== null) tally.add('tag', st.size);
    }
    const data = step.files.filter((f) => f.kind === 'data');
    const inner = step.files.filter((f) => f.kind === 'manifest' || f.kind === 'index');
    const outer = step.files.filter((f) => f.kind !== 'data' && f.kind !== 'manifest' && f.kind !== 'index');
    for (const [phase, files] of [['data files', data], ['manifests and index files', inner], ['manifest lists, index manifests and statistics', outer]] as const) {
      if (files.length === 0) continue;
      ctx.progress({ phase: `delete ${phase}`, done: 0, total: files.length, message: `tag '${step.name}'` });
      await deleteFiles(t.fileIO, files, tally, { concurrency: ctx.limits.delete_concurrency, dryRun, signal: ctx.signal });
    }
    if (!dryRun && (await t.fileIO.delete(deletingPath))) tally.add('tag', tagBytes);
  }
  if (committed) ctx.reportAffected(t.identifier);
  return { outcomes, pinnedSnapshotId: generation.latestId, warnings: plan.warnings };
}

/** Files and bytes per kind over several outcomes, as one tally. */
export function totalTally(outcomes: readonly TagDeletionOutcome[]): DeletionTally {
  const total = new DeletionTally();
  for (const o of outcomes) {
    for (const [kind, v] of o.tally.byKind) {
      const cur = total.byKind.get(kind) ?? { files: 0, bytes: 0 };
      total.byKind.set(kind, { files: cur.files + v.files, bytes: cur.bytes + v.bytes });
    }
  }
  return total;
}
