/**
 * `rollback_to_as_latest(table, tag | snapshot_id)`: Paimon 2.0's non-destructive rollback
 * (Flink RollbackToAsLatestProcedure + FileStoreCommitImpl.rollbackToAsLatest). A new
 * OVERWRITE snapshot `latest + 1` is committed whose live files equal the target's:
 *   base list  = the latest snapshot's live files (written as fresh manifests)
 *   delta list = DELETE of files live only in the latest, ADD of files live only in the target
 *   schemaId, indexManifest, watermark, statistics, properties, totalRecordCount = the target's;
 *   nextRowId = max(latest, target) so row ids never move backwards.
 * Nothing is deleted. A snapshot-id target first gets a protective tag
 * `rollback-to-as-latest-<id>-<uuid>` (no TTL, apache/paimon#8450) so expiry cannot remove
 * the files the new snapshot shares with it; the tag is removed again if the commit fails.
 *
 * The commit is create-if-absent on `snapshot-<latest+1>`, planned from the pinned latest
 * snapshot: if another writer committed first, this is COMMIT_CONFLICT (Paimon's procedure
 * fails the same way) and the files written for it are removed.
 */
import { randomUUID } from 'node:crypto';
import { PaimonError, isPaimonError } from '../../src/paimon/errors.js';
import { mergeEntries } from '../../src/paimon/spec/file-entry.js';
import { ManifestFile } from '../../src/paimon/table/manifest-file.js';
import { ManifestList } from '../../src/paimon/table/manifest-list.js';
import { toDeleteEntry, type ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { applyWriterStyle, CURRENT_SNAPSHOT_VERSION, LONG_MAX_VALUE, type Snapshot } from '../../src/paimon/spec/snapshot.js';
import { TagManager } from '../../src/paimon/table/tag-manager.js';
import { trimToSnapshot } from '../../src/paimon/spec/tag.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import { diffLiveFiles } from '../../src/paimon/maintenance/rollback-plan.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { MaintenanceTable } from '../framework/table-context.js';

export const ROLLBACK_TO_AS_LATEST_TAG_PREFIX = 'rollback-to-as-latest-';

export interface RollbackToAsLatestArgs {
  table: string;
  tag: string | null;
  snapshot_id: bigint | null;
  dry_run: boolean;
}

async function liveEntries(manifestList: ManifestList, manifestFile: ManifestFile, s: Snapshot): Promise<Map<string, ManifestEntry>> {
  const merged = new Map<string, ManifestEntry>();
  for (const m of await manifestList.readDataManifests(s)) mergeEntries(await manifestFile.read(m.fileName), merged);
  for (const [k, e] of merged) if (e.kind !== 'ADD') merged.delete(k);
  return merged;
}

function maxBig(a: bigint | undefined, b: bigint | undefined): bigint | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

export async function runRollbackToAsLatest(args: RollbackToAsLatestArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const hasTag = args.tag !== null && args.tag.trim() !== '';
  const hasSnapshot = args.snapshot_id !== null;
  if (hasTag === hasSnapshot) throw new PaimonError('INVALID_ARGUMENT', 'Must specify exactly one of tag and snapshot_id.');

  const t = await MaintenanceTable.open(await ctx.resolveTable(args.table));
  const snapshots = new SnapshotManager(t.fileIO, t.location, t.branch);
  const tags = new TagManager(t.fileIO, t.location, t.branch);
  const latest = await snapshots.latestSnapshot();
  if (latest === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', 'Latest snapshot is null, can not roll back.');

  let target: Snapshot;
  let targetTag: string | null = null;
  if (hasTag) {
    targetTag = args.tag!.trim();
    target = trimToSnapshot(await tags.getOrThrow(targetTag));
  } else {
    const id = Number(args.snapshot_id);
    const s = Number.isSafeInteger(id) && id > 0 ? await snapshots.tryGetSnapshot(id) : null;
    if (s !== null) target = s;
    else {
      const tagged = (await t.tags()).find((x) => x.snapshot.id === id);
      if (!tagged) throw new PaimonError('SNAPSHOT_NOT_FOUND', `Snapshot '${args.snapshot_id}' to roll back to doesn't exist.`);
      targetTag = tagged.name;
      target = trimToSnapshot(await tags.getOrThrow(tagged.name));
    }
  }

  const opts = t.schema.options;
  const meta = { compression: opts['avro.codec'] ?? opts['manifest.compression'] ?? 'zstd', zstdLevel: opts['file.compression.zstd-level'] === undefined ? 1 : Number(opts['file.compression.zstd-level']) };
  const manifestFile = new ManifestFile(t.fileIO, t.pathFactory, t.schema.partitionFields.map((f) => f.type), meta);
  const manifestList = new ManifestList(t.fileIO, t.pathFactory, meta);
  ctx.progress({ phase: 'plan' });
  const latestLive = await liveEntries(manifestList, manifestFile, latest);
  const targetLive = await liveEntries(manifestList, manifestFile, target);
  const { toDelete, toAdd } = diffLiveFiles(latestLive, targetLive);
  const delta: ManifestEntry[] = [...toDelete.map(toDeleteEntry), ...toAdd.map((e) => ({ ...e, kind: 'ADD' as const }))];
  let deltaRecordCount = 0n;
  for (const e of delta) deltaRecordCount += e.kind === 'ADD' ? e.file.rowCount : -e.file.rowCount;

  const row = (changed: boolean, current: number, protectiveTag: string | null) => ({
    previous_snapshot_id: latest.id,
    rolled_back_snapshot_id: target.id,
    current_snapshot_id: current,
    changed,
    dry_run: args.dry_run,
    pinned_snapshot_id: latest.id,
    target_tag: targetTag,
    protective_tag: protectiveTag,
    files_removed_from_view: toDelete.length,
    files_restored_to_view: toAdd.length,
  });
  if (args.dry_run) {
    return { rows: [row(false, latest.id, null)], info: `would commit snapshot ${latest.id + 1} equal to snapshot ${target.id}` };
  }

  // A snapshot-id target gets a protective tag first, so expiry keeps the target's files.
  let createdTag: string | null = null;
  if (!hasTag) {
    createdTag = `${ROLLBACK_TO_AS_LATEST_TAG_PREFIX}${target.id}-${randomUUID()}`;
    await tags.createTag(target, createdTag);
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
  }
  const commitUser = `${ROLLBACK_TO_AS_LATEST_TAG_PREFIX}${randomUUID()}`;
  const written: string[] = [];
  let committed = false;
  try {
    ctx.throwIfAborted();
    const baseMetas = await manifestFile.write([...latestLive.values()], BigInt(target.schemaId));
    written.push(...baseMetas.map((m) => m.fileName));
    const base = await manifestList.write(baseMetas);
    written.push(base.fileName);
    const deltaMetas = await manifestFile.write(delta, BigInt(target.schemaId));
    written.push(...deltaMetas.map((m) => m.fileName));
    const deltaList = await manifestList.write(deltaMetas);
    written.push(deltaList.fileName);
    const nextRowId = maxBig(latest.nextRowId, target.nextRowId);
    const snapshot: Snapshot = applyWriterStyle(
      {
        version: CURRENT_SNAPSHOT_VERSION,
        id: latest.id + 1,
        schemaId: target.schemaId,
        baseManifestList: base.fileName,
        baseManifestListSize: base.fileSize,
        deltaManifestList: deltaList.fileName,
        deltaManifestListSize: deltaList.fileSize,
        ...(target.indexManifest !== undefined ? { indexManifest: target.indexManifest } : {}),
        commitUser,
        commitIdentifier: LONG_MAX_VALUE,
        commitKind: 'OVERWRITE',
        timeMillis: ctx.clock.now(),
        totalRecordCount: target.totalRecordCount,
        deltaRecordCount,
        ...(target.watermark !== undefined ? { watermark: target.watermark } : {}),
        ...(target.statistics !== undefined ? { statistics: target.statistics } : {}),
        ...(target.properties !== undefined ? { properties: target.properties } : {}),
        ...(nextRowId !== undefined ? { nextRowId } : {}),
      },
      '1.4',
    );
    ctx.throwIfAborted();
    ctx.progress({ phase: 'commit', message: `snapshot ${snapshot.id}` });
    committed = await snapshots.commitSnapshot(snapshot);
    if (!committed) {
      throw new ProcedureError(
        'COMMIT_CONFLICT',
        `rollback_to_as_latest on ${t.identifier}: snapshot ${latest.id + 1} was committed by another writer meanwhile; nothing was rolled back, retry.`,
      );
    }
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return {
      rows: [row(true, snapshot.id, createdTag)],
      info: `committed snapshot ${snapshot.id} with the content of snapshot ${target.id}`,
    };
  } catch (e) {
    if (!committed) {
      // Undo what only this attempt wrote: its manifests and the protective tag (unless our
      // snapshot landed after all, which a lost acknowledgement could hide).
      const landed = await snapshots.tryGetSnapshot(latest.id + 1).catch(() => null);
      if (landed === null || landed.commitUser !== commitUser) {
        await t.fileIO.deleteMany(written.map((n) => t.pathFactory.toManifestFilePath(n))).catch(() => 0);
        if (createdTag !== null) await tags.deleteTag(createdTag).catch(() => null);
      }
    }
    if (isPaimonError(e) || e instanceof ProcedureError) throw e;
    throw new PaimonError('STORAGE_ERROR', `Failed to roll back to snapshot ${target.id} as latest: ${(e as Error).message}`, { cause: e });
  }
}

export const rollbackToAsLatest = defineProcedure({
  name: 'rollback_to_as_latest',
  description:
    "Non-destructive rollback (Paimon 2.0): commit a new latest snapshot whose content equals the target snapshot or tag; nothing is deleted.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', aliases: ['tagName'], type: 'string', description: 'Tag to roll back to.' },
    { name: 'snapshot_id', aliases: ['snapshot', 'snapshotId'], type: 'bigint', description: 'Snapshot id to roll back to.' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report the difference, commit nothing.' },
  ],
  resultColumns: [
    { name: 'previous_snapshot_id', type: 'bigint', description: "Latest snapshot id before (Paimon's result)." },
    { name: 'rolled_back_snapshot_id', type: 'bigint', description: "The target snapshot id (Paimon's result)." },
    { name: 'current_snapshot_id', type: 'bigint', description: "The new latest snapshot id (Paimon's result)." },
    { name: 'changed', type: 'boolean', description: 'Whether a snapshot was committed.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot the new one was planned from.' },
    { name: 'target_tag', type: 'string', description: 'The tag rolled back to, when the target was (or resolved to) a tag.' },
    { name: 'protective_tag', type: 'string', description: 'Tag created to keep the target snapshot from expiring (snapshot targets).' },
    { name: 'files_removed_from_view', type: 'bigint', description: 'Data files live in the latest snapshot but not in the target (DELETE entries).' },
    { name: 'files_restored_to_view', type: 'bigint', description: 'Data files live in the target but not in the latest snapshot (ADD entries).' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runRollbackToAsLatest(args, ctx),
});
