/**
 * `purge_files(table, dry_run)` (Spark's and Flink's `PurgeFilesProcedure`, Paimon 1.1+, which run
 * `FileStoreTable.purgeFiles`; the same in 1.4.2 and 2.0.0): irreversibly empty a table while keeping
 * its schema, in Java's order:
 *
 *  1. drop every branch;
 *  2. delete every tag, with the files only it kept (tag-cleanup.ts, as delete_tag);
 *  3. delete every consumer;
 *  4. truncate: one OVERWRITE snapshot deleting every live data and index file
 *     (src/paimon/repair/truncate-table.ts);
 *  5. delete the changelog directory (decoupled changelogs);
 *  6. expire snapshots down to that last one (expire_snapshots with retain 1/1, older_than now, no
 *     delete limit);
 *  7. remove every unreferenced file older than the call (remove_orphan_files with older_than now,
 *     as Java's `LocalOrphanFilesClean(table, now)`): this also removes files that writers running
 *     at the same time have not committed yet.
 *
 * What stays: `schema/`, the truncation snapshot with its manifests, the hints. Java then answers
 * `Success`; that is our OK info, and the rows say what each step did.
 *
 * Safety: ADMIN (a global privilege), on the main branch only, and `dry_run` defaults to TRUE here
 * (unlike Paimon): a CALL copied from a Spark script reports what it would purge and changes
 * nothing; `dry_run => false` purges. The plan is pinned (latest and earliest snapshot, tags,
 * consumers, branches): a change before the first step is CONCURRENT_MODIFICATION with nothing
 * changed, and the truncation commits only on top of the pinned latest snapshot. The steps are not
 * one transaction (neither are Java's): a failure later names the steps already done; calling
 * purge_files again finishes the work.
 */
import { commitTruncate, planTruncate, type TruncatePlan } from '../../src/paimon/repair/truncate-table.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { readGeneration, generationChanges } from '../framework/generation.js';
import { ProcedureError, toProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult, ResultRow } from '../framework/result.js';
import { runTagDeletions, totalTally } from '../tags/tag-cleanup.js';
import { runExpireSnapshots } from '../snapshots/expire-snapshots.js';
import { runRemoveOrphanFiles } from '../files/remove-orphan-files.js';

type Step = 'drop_branches' | 'delete_tags' | 'delete_consumers' | 'truncate' | 'delete_changelogs' | 'expire_snapshots' | 'remove_orphan_files';

interface StepRow extends ResultRow {
  step: Step;
  objects: bigint | null;
  bytes: bigint | null;
  detail: string;
  dry_run: boolean;
}

interface PurgePlan {
  branches: string[];
  tags: string[];
  consumers: string[];
  truncate: TruncatePlan | null;
  changelogFiles: number;
  changelogBytes: bigint;
  snapshots: number;
}

/** Identifier text of the main branch, for the nested procedures. */
const mainIdentifier = (t: FileStoreTable): string => `\`${t.database.replace(/`/g, '``')}\`.\`${t.name.replace(/`/g, '``')}\``;

async function plan(t: FileStoreTable): Promise<PurgePlan> {
  const snapshots = t.snapshotManager();
  const latest = await snapshots.latestSnapshot();
  const tags: string[] = [];
  for await (const n of t.tagManager().tagNames()) tags.push(n);
  let changelogFiles = 0;
  let changelogBytes = 0n;
  const dir = t.changelogManager().changelogDirectory();
  if (await t.fileIO.exists(dir)) {
    for await (const f of t.fileIO.listRecursive(dir)) {
      changelogFiles++;
      changelogBytes += BigInt(f.size);
    }
  }
  return {
    branches: (await t.branchManager().branches()).sort(),
    tags: tags.sort(),
    consumers: (await t.consumerManager().listAllIds()).sort(),
    truncate: latest === null ? null : await planTruncate(t, latest),
    changelogFiles,
    changelogBytes,
    snapshots: await snapshots.snapshotCount(),
  };
}

function planRows(p: PurgePlan, dryRun: boolean): StepRow[] {
  const row = (step: Step, objects: number | bigint | null, bytes: bigint | null, detail: string): StepRow => ({ step, objects: objects === null ? null : BigInt(objects), bytes, detail, dry_run: dryRun });
  const tr = p.truncate;
  return [
    row('drop_branches', p.branches.length, null, p.branches.join(', ')),
    row('delete_tags', p.tags.length, null, p.tags.join(', ')),
    row('delete_consumers', p.consumers.length, null, p.consumers.join(', ')),
    row('truncate', tr?.dataFiles ?? 0, tr?.dataBytes ?? 0n, tr === null ? 'the table has no snapshot' : `${tr.rows} rows in ${tr.dataFiles} data files and ${tr.indexFiles} index files on top of snapshot ${tr.base.id}`),
    row('delete_changelogs', p.changelogFiles, p.changelogBytes, 'the changelog directory'),
    row('expire_snapshots', p.snapshots, null, 'every snapshot but the truncation snapshot'),
    row('remove_orphan_files', null, null, 'every file no longer referenced, older than the call (counted by the real run)'),
  ];
}

async function runPurge(args: { table: string; dry_run: boolean }, ctx: ProcedureContext): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(args.table);
  if (t.branch !== 'main') {
    throw new ProcedureError('INVALID_ARGUMENT', `purge_files purges a whole table with all its branches; call it on ${t.database}.${t.name}, not on branch '${t.branch}'.`);
  }
  ctx.progress({ phase: 'plan' });
  const r = t.maintenanceReader();
  const generation = await readGeneration(r);
  const p = await plan(t);
  const rows = planRows(p, args.dry_run);
  if (args.dry_run) {
    return { rows, info: `dry run: purge_files would empty ${t.identifier} (schema kept); nothing changed. Call it again with dry_run => false to purge.` };
  }

  // The pin: nothing moved between the plan and the first step.
  const changes = generationChanges(generation, await readGeneration(r), { latest: true, earliest: true, tags: true, consumers: true });
  const branchesNow = (await t.branchManager().branches()).sort();
  if (branchesNow.join('\u0000') !== p.branches.join('\u0000')) changes.push(`branches changed from [${p.branches.join(', ')}] to [${branchesNow.join(', ')}]`);
  if (changes.length > 0) {
    throw new ProcedureError('CONCURRENT_MODIFICATION', `purge_files on ${t.identifier}: ${changes.join('; ')} while planning. Nothing was changed; call purge_files again.`);
  }

  const done: Step[] = [];
  const step = async (name: Step, work: () => Promise<{ objects?: bigint | null; bytes?: bigint | null; detail?: string } | void>): Promise<void> => {
    ctx.throwIfAborted();
    ctx.progress({ phase: name, done: done.length, total: 7 });
    try {
      const out = await work();
      const row = rows.find((x) => x.step === name)!;
      row.dry_run = false;
      if (out) {
        if (out.objects !== undefined) row.objects = out.objects;
        if (out.bytes !== undefined) row.bytes = out.bytes;
        if (out.detail !== undefined) row.detail = out.detail;
      }
      done.push(name);
    } catch (e) {
      if (ctx.signal.aborted) ctx.throwIfAborted();
      const err = toProcedureError(e);
      throw new ProcedureError(
        err.code,
        `purge_files on ${t.identifier} failed at ${name}: ${err.message}.` + (done.length > 0 ? ` Steps already done: ${done.join(', ')}; call purge_files again to finish.` : ' Nothing was changed.'),
        { cause: e, committed: done.length > 0 },
      );
    }
  };

  const bm = t.branchManager();
  await step('drop_branches', async () => {
    for (const b of p.branches) {
      await bm.dropBranch(b);
      ctx.markCommitted();
    }
  });
  await step('delete_tags', async () => {
    if (p.tags.length === 0) return;
    const run = await runTagDeletions('purge_files', t, p.tags, ctx, false);
    const tally = totalTally(run.outcomes);
    return { bytes: BigInt(tally.bytes), detail: `${p.tags.join(', ')} (${tally.files} files deleted with them)` };
  });
  await step('delete_consumers', async () => {
    const cm = t.consumerManager();
    for (const c of p.consumers) {
      await cm.deleteConsumer(c);
      ctx.markCommitted();
    }
  });
  await step('truncate', async () => {
    if (p.truncate === null) return;
    const base = p.truncate.base;
    const s = await commitTruncate(t, p.truncate, async (latest) => {
      if ((latest?.id ?? null) !== base.id) {
        throw new ProcedureError('CONCURRENT_MODIFICATION', `latest snapshot moved from ${base.id} to ${latest?.id ?? 'none'} before the truncation`);
      }
    });
    ctx.markCommitted();
    return { detail: `${rows.find((x) => x.step === 'truncate')!.detail}: OVERWRITE snapshot ${s.id}` };
  });
  await step('delete_changelogs', async () => {
    const dir = t.changelogManager().changelogDirectory();
    if (await t.fileIO.exists(dir)) {
      await t.fileIO.deleteDirectory(dir);
      ctx.markCommitted();
    }
  });
  const nested = mainIdentifier(t);
  await step('expire_snapshots', async () => {
    const res = await runExpireSnapshots(
      { table: nested, retain_max: 1, retain_min: 1, older_than: String(ctx.clock.now()), max_deletes: 2147483647, options: null, dry_run: false },
      ctx,
    );
    const first = res.rows[0];
    const n = first?.['deleted_snapshots_count'] ?? null;
    return { objects: typeof n === 'number' || typeof n === 'bigint' ? BigInt(n) : null, detail: res.info ?? 'expired' };
  });
  await step('remove_orphan_files', async () => {
    const res = await runRemoveOrphanFiles(
      { table: nested, older_than: String(ctx.clock.now() - 1), dry_run: false, parallelism: null, mode: 'local', force: true },
      ctx,
    );
    const first = res.rows[0];
    const files = first?.['deletedFileCount'];
    const bytes = first?.['deletedFileTotalLenInBytes'];
    return { objects: typeof files === 'bigint' ? files : null, bytes: typeof bytes === 'bigint' ? bytes : null, detail: res.info ?? 'removed' };
  });
  ctx.reportAffected(t.identifier);
  return { rows, info: 'Success' };
}

export const purgeFiles = defineProcedure({
  name: 'purge_files',
  description:
    "Irreversibly empty a table, keeping its schema (Paimon's purge_files): drop branches, tags and consumers, truncate, delete changelogs, expire snapshots down to one, remove every unreferenced file. ADMIN only; dry_run defaults to TRUE here, pass dry_run => false to purge.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' (the main branch; its branches are dropped)." },
    { name: 'dry_run', type: 'boolean', default: true, description: 'Default TRUE (unlike Paimon): report what would be purged; dry_run => false purges.' },
  ],
  resultColumns: [
    { name: 'step', type: 'string', description: "The step, in Java's order: drop_branches, delete_tags, delete_consumers, truncate, delete_changelogs, expire_snapshots, remove_orphan_files." },
    { name: 'objects', type: 'bigint', description: 'Branches, tags, consumers, data files, changelog files, snapshots or orphan files the step removes.' },
    { name: 'bytes', type: 'bigint', description: 'Bytes of those files, where known.' },
    { name: 'detail', type: 'string', description: 'What the step did (or would do).' },
    { name: 'dry_run', type: 'boolean', description: 'True when the step did not run.' },
  ],
  privilege: { privilege: 'ADMIN', on: 'table' },
  destructive: true,
  heavy: true,
  run: (args, ctx) => runPurge(args, ctx),
});
