/**
 * `compact_manifest` (Spark/Flink CompactManifestProcedure -> BatchTableCommit.compactManifests ->
 * FileStoreCommitImpl.compactManifest): rewrite the latest snapshot's data manifests as Paimon's
 * full manifest compaction does (src/paimon/manifests/manifest-compaction.ts) and commit them as a
 * COMPACT snapshot whose base list holds the merged manifests and whose delta is empty: the same
 * live files, fewer and smaller manifests for readers. When nothing would change, nothing is
 * committed (as in Paimon). `options` are dynamic table options for this call (for example
 * `manifest.target-file-size`). No file is deleted: the old manifests go with the older
 * snapshots' expiry.
 *
 * A commit that loses its snapshot id to a concurrent writer is planned again on the new latest
 * snapshot and retried (bounded by commit.max-retries), as Paimon retries: the compaction is
 * recomputed from whatever is live then, so no concurrent commit is lost.
 */
import { randomUUID } from 'node:crypto';
import { defineProcedure } from '../framework/registry.js';
import { parseOptions } from '../framework/time-args.js';
import { FileStoreCommit } from '../../src/paimon/table/file-store-commit.js';
import { DEFAULT_MANIFEST_TARGET_FILE_SIZE } from '../../src/paimon/table/manifest-file.js';
import type { Snapshot, SnapshotWriterStyle } from '../../src/paimon/spec/snapshot.js';
import { planManifestCompaction, writeManifestCompaction, type ManifestCompactionPlan } from '../../src/paimon/manifests/manifest-compaction.js';

/** Flink's CompactManifestProcedure sets commit.user-prefix to this (CoreOptions.createCommitUser: prefix_uuid). */
const COMMIT_USER_PREFIX = 'Compact-Manifest-Procedure-Committer';

/** The key set the table's writers use, read off its latest snapshot (a 2.0 writer adds `uuid`). */
function writerStyleOf(s: Snapshot): SnapshotWriterStyle {
  if (s.uuid !== undefined) return '2.0';
  return s.logOffsets !== undefined ? '1.3' : '1.4';
}

/** Manifests after a plan, counting each rewritten group as one new manifest (rolling may write more). */
function estimatedAfter(p: ManifestCompactionPlan): number {
  return p.items.reduce((n, i) => n + (i.kind === 'keep' ? 1 : i.entries.length > 0 ? 1 : 0), 0);
}

export const compactManifest = defineProcedure({
  name: 'compact_manifest',
  description:
    "Compact the manifests of a table (Paimon's CompactManifestProcedure): the latest snapshot's data manifests are fully merged (ADD/DELETE pairs of a file cancel, small manifests are rewritten into target-size ones) and committed as a COMPACT snapshot with the same live files; nothing is committed when there is nothing to merge.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'options', type: 'string', description: "Dynamic table options for this call, 'k1=v1,k2=v2' (e.g. manifest.target-file-size)." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be merged, write nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the call succeeded (Paimon's result)." },
    { name: 'snapshot_id', type: 'bigint', description: 'The COMPACT snapshot committed (null: nothing to compact, or a dry run).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'The latest snapshot the compaction was computed from.' },
    { name: 'mode', type: 'string', description: "'full' or 'minor' (Paimon falls back to minor compaction when full compaction has at most one manifest to merge)." },
    { name: 'manifests_before', type: 'int', description: 'Data manifests of that snapshot.' },
    { name: 'manifests_after', type: 'int', description: 'Data manifests of the new snapshot (a dry run counts each rewritten group as one).' },
    { name: 'manifests_rewritten', type: 'int', description: 'Manifests read and replaced by new ones.' },
    { name: 'entries_dropped', type: 'bigint', description: 'Entries of the rewritten manifests that the merge drops (deleted files and their DELETE entries).' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const options = { ...t.schema.options, ...parseOptions(args.options) };
    const latest = await t.snapshotManager().latestSnapshot();
    const commit = new FileStoreCommit({
      fileIO: t.fileIO,
      tablePath: t.location,
      branch: t.branch,
      commitUser: `${COMMIT_USER_PREFIX}_${randomUUID()}`,
      partitionFields: t.partitionFields,
      keyTypes: t.keyTypes,
      bucketMode: t.bucketMode,
      tableOptions: options,
      ...(latest !== null ? { writerStyle: writerStyleOf(latest) } : {}),
    });
    const target = BigInt(commit.manifestFile.options.targetFileSize ?? DEFAULT_MANIFEST_TARGET_FILE_SIZE);
    const read = (f: { fileName: string }) => commit.manifestFile.read(f.fileName);
    const row = (p: ManifestCompactionPlan | null, pinned: number | null, snapshotId: number | null, after: number) => {
      return {
        result: true,
        snapshot_id: snapshotId,
        pinned_snapshot_id: pinned,
        mode: p?.mode ?? null,
        manifests_before: p?.manifestsBefore ?? 0,
        manifests_after: after,
        manifests_rewritten: p?.manifestsRewritten ?? 0,
        entries_dropped: BigInt(p?.entriesDropped ?? 0),
        dry_run: args.dry_run,
      };
    };
    if (latest === null) return { rows: [row(null, null, null, 0)], info: 'the table has no snapshot: nothing to compact' };
    ctx.progress({ phase: 'plan' });
    if (args.dry_run) {
      const p = await planManifestCompaction(await commit.manifestList.readDataManifests(latest), read, target);
      return { rows: [row(p, latest.id, null, estimatedAfter(p))], info: p.unchanged ? 'nothing to compact' : `would rewrite ${p.manifestsRewritten} of ${p.manifestsBefore} manifest(s)` };
    }
    ctx.throwIfAborted();
    let last: { plan: ManifestCompactionPlan; pinned: number; written: number } | null = null;
    const committed = await commit.compactManifest(async (manifests, schemaId, written) => {
      ctx.throwIfAborted();
      const p = await planManifestCompaction(manifests, read, target);
      const pinned = (await commit.snapshotManager.latestSnapshotId()) ?? latest.id;
      const out = await writeManifestCompaction(p, async (entries) => {
        const metas = await commit.manifestFile.write(entries, schemaId);
        written.push(...metas.map((m) => m.fileName));
        return metas;
      });
      last = { plan: p, pinned, written: out === null ? 0 : out.length };
      ctx.progress({ phase: 'commit' });
      return out;
    });
    const l = last as { plan: ManifestCompactionPlan; pinned: number; written: number } | null;
    if (committed === null || l === null) {
      return { rows: [row(l?.plan ?? null, l?.pinned ?? latest.id, null, l?.plan.manifestsBefore ?? 0)], info: 'nothing to compact' };
    }
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return { rows: [row(l.plan, committed.snapshot.id - 1, committed.snapshot.id, l.written)], info: `snapshot ${committed.snapshot.id}: ${l.plan.manifestsBefore} manifest(s) compacted into ${l.written}` };
  },
});
