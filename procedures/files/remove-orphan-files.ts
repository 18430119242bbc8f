/**
 * `remove_orphan_files(table, older_than, dry_run, parallelism, mode)`: Paimon's
 * LocalOrphanFilesClean (see orphan-clean.ts), for one table or `db.*`.
 *
 * Beyond Paimon:
 * - an `older_than` younger than `procedures.orphan_min_age_ms` (default 1 h) is refused
 *   unless `force => true`, which needs ADMIN (checked by the authorize hook): files of a
 *   write still in flight (a Doris insert not committed yet) look orphaned until it commits;
 * - the generation is re-read after the listing until stable, and once more right before
 *   deleting (a commit, tag or branch that appeared meanwhile protects its files);
 * - every branch must have a schema (as Paimon), and nothing is deleted when any used file
 *   cannot be read (other than "gone", which means expired meanwhile);
 * - as Paimon's LocalOrphanFilesClean, the bucket directories that deleted data files leave empty
 *   are removed, then their partition directories level by level while they are empty (only
 *   where the store has directories, and only if empty at that moment: a file written meanwhile
 *   keeps its directory);
 * - bounded memory: candidates are kept compactly and, past procedures.orphan_memory_files,
 *   spilled to temp files (procedures.orphan_spill_dir) and matched partition by partition;
 *   directories are listed procedures.orphan_list_concurrency at a time; deletes stream with
 *   `parallelism` (default procedures.delete_concurrency) in flight. Progress is reported per
 *   phase: list, reachability, match, recheck, delete.
 * `mode` accepts Paimon's `local` and `distributed`; both run here, in this process.
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { join, name as baseName, parent } from '../../src/paimon/fs/path.js';
import type { OrphanLayout } from '../../src/paimon/maintenance/orphan-files.js';
import type { DeletedFileKind, PlannedFile } from '../../src/paimon/maintenance/types.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { deleteFileStream, DeletionTally } from '../framework/file-deleter.js';
import { recheckOrphans, scanOrphanFiles, type OrphanCleanOptions } from './orphan-clean.js';
import { SpillSpace } from './orphan-spill.js';
import { CANDIDATE_AREAS, type CandidateArea } from './orphan-store.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import type { TableMaintenanceReader } from '../../src/paimon/table/maintenance-reader.js';
import { parseTimestampMillis } from '../framework/time-args.js';
import { quote } from '../framework/quote.js';

const DAY_MS = 86_400_000;
/** Paths listed in the result at most (the counts always cover everything). */
export const MAX_LISTED_PATHS = 10_000;

export interface RemoveOrphanFilesArgs {
  table: string;
  older_than: string | null;
  dry_run: boolean;
  parallelism: number | null;
  mode: string | null;
  force: boolean;
}

const KIND_OF_AREA: Record<CandidateArea, DeletedFileKind> = {
  data: 'data',
  manifest: 'manifest',
  index: 'index',
  statistics: 'statistics',
  snapshot_dir: 'other',
  changelog_dir: 'other',
};

/** OrphanFilesClean.olderThanMillis plus our floor. */
export function orphanCutoff(args: Pick<RemoveOrphanFilesArgs, 'older_than' | 'force'>, now: number, floorMs: number): number {
  if (args.older_than === null || args.older_than.trim() === '') return now - DAY_MS;
  const t = parseTimestampMillis(args.older_than, 'older_than');
  if (t >= now) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `older_than ${quote(args.older_than)} must be earlier than now, because data files that are being written and not yet referenced by a snapshot would be cleaned up by mistake.`,
    );
  }
  if (now - t < floorMs && !args.force) {
    throw new ProcedureError(
      'UNSAFE_ARGUMENT',
      `older_than ${quote(args.older_than)} is only ${Math.round((now - t) / 1000)} s ago, younger than the safety floor of ` +
        `${Math.round(floorMs / 1000)} s (procedures.orphan_min_age_ms): files of writes still in flight would look orphaned. ` +
        'Use an older time, or force => true (requires ADMIN).',
    );
  }
  return t;
}

function layoutOf(t: FileStoreTable): OrphanLayout {
  const dir = t.option('data-file.path-directory');
  const ext = t.option('data-file.external-paths');
  return {
    tableRoot: t.location,
    partitionKeyCount: t.partitionKeys.length,
    dataRoot: dir ? join(t.location, dir) : t.location,
    externalPaths: ext ? ext.split(',').map((s) => s.trim()).filter((s) => s !== '') : [],
  };
}

interface TableOutcome {
  identifier: string;
  pinned: number | null;
  candidates: number;
  rounds: number;
  spilled: boolean;
}

async function cleanTable(
  { t, layout, reader }: OpenedTable,
  olderThan: number,
  dryRun: boolean,
  concurrency: number,
  tally: DeletionTally,
  paths: string[],
  ctx: ProcedureContext,
): Promise<TableOutcome> {
  const pinned = await t.snapshotManager().latestSnapshotId();
  const spill = new SpillSpace(ctx.limits.orphan_spill_dir);
  const opts: OrphanCleanOptions = {
    fileIO: t.fileIO,
    layout,
    olderThanMillis: olderThan,
    reader,
    memoryThreshold: ctx.limits.orphan_memory_files,
    spill,
    listConcurrency: ctx.limits.orphan_list_concurrency,
    checkAbort: () => ctx.throwIfAborted(),
    onProgress: (p) => ctx.progress({ phase: `${p.phase} ${t.identifier}`, done: p.done, ...(p.message ? { message: p.message } : {}) }),
  };
  try {
    ctx.progress({ phase: `list ${t.identifier}`, done: 0 });
    const scan = await scanOrphanFiles(opts);
    try {
      ctx.throwIfAborted();
      const linked = scan.linkedDirectories;
      if (linked.count > 0) {
        const shown = linked.paths.map((p) => relativeTo(t.location, p)).join(', ');
        ctx.warn(
          `remove_orphan_files on ${t.identifier}: ${linked.count} symbolic link(s) to directories not followed; ` +
            `nothing behind them was listed or deleted: ${shown}${linked.count > linked.paths.length ? ', ...' : ''}`,
        );
      }
      const newRefs = await recheckOrphans(opts, scan);
      if (newRefs > 0) ctx.logger.info({ table: t.identifier, newRefs }, 'remove_orphan_files: metadata appeared after the scan; its files are kept');
      ctx.logger.info(
        {
          table: t.identifier,
          candidates: scan.candidateCount,
          orphans: scan.orphans.count,
          directories: scan.listing.directoriesListed,
          metadataFilesRead: scan.metadataFilesRead,
          manifestsRead: scan.reach.manifestsRead,
          spilled: scan.spilled,
          peakCandidatesInMemory: scan.peakInMemory,
        },
        'remove_orphan_files: scan done',
      );
      const orphans = scan.orphans;
      const bucketDirs = new Set<string>();
      const planned = function* (): Generator<PlannedFile> {
        for (const c of orphans.entries()) {
          const dir = scan.dirs.path(c.dir);
          const path = join(dir, c.name);
          if (paths.length < MAX_LISTED_PATHS) paths.push(path);
          if (baseName(dir).startsWith('bucket-')) bucketDirs.add(dir);
          yield { path, kind: KIND_OF_AREA[CANDIDATE_AREAS[c.area] ?? 'data'], bytes: c.size };
        }
      };
      if (orphans.count > 0 && !dryRun) {
        ctx.markCommitted();
        ctx.reportAffected(t.identifier);
      }
      await deleteFileStream(t.fileIO, planned(), orphans.count, tally, {
        concurrency,
        dryRun,
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress({ phase: `delete ${t.identifier}`, done, total }),
      });
      if (!dryRun) await removeEmptyDirectories(t, bucketDirs);
      return { identifier: t.identifier, pinned, candidates: scan.candidateCount, rounds: scan.rounds, spilled: scan.spilled };
    } finally {
      scan.orphans.dispose();
    }
  } finally {
    spill.dispose();
  }
}

/**
 * Paimon's cleanEmptyDataDirectory: each bucket directory orphans were deleted from, if empty,
 * then the partition directories above, one level per partition key, each only if empty (so the
 * table directory itself is never reached).
 */
async function removeEmptyDirectories(t: FileStoreTable, bucketDirs: ReadonlySet<string>): Promise<void> {
  const io = t.fileIO;
  if (io.deleteEmptyDirectory === undefined || bucketDirs.size === 0) return;
  for (const d of bucketDirs) await io.deleteEmptyDirectory(d);
  let level = new Set([...bucketDirs].map((d) => parent(d)).filter((d): d is string => d !== null));
  for (let i = 0; i < t.partitionKeys.length && level.size > 0; i++) {
    const next = new Set<string>();
    for (const d of level) {
      const up = parent(d);
      if ((await io.deleteEmptyDirectory(d)) && up !== null) next.add(up);
    }
    level = next;
  }
}

/** A table to clean, its layout and reader: all read from its latest schema before anything is deleted in any table. */
interface OpenedTable {
  t: FileStoreTable;
  layout: OrphanLayout;
  reader: TableMaintenanceReader;
}

async function openTable(ctx: ProcedureContext, identifier: string): Promise<OpenedTable> {
  const t = await ctx.resolveTable(identifier);
  return { t, layout: layoutOf(t), reader: t.maintenanceReader() };
}

export async function runRemoveOrphanFiles(args: RemoveOrphanFilesArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const mode = (args.mode ?? 'distributed').trim().toUpperCase();
  if (mode !== 'LOCAL' && mode !== 'DISTRIBUTED') {
    throw new PaimonError('INVALID_ARGUMENT', `Unknown mode: ${quote(args.mode ?? '')}. Only 'DISTRIBUTED' and 'LOCAL' are supported (mode => 'local' or 'distributed').`);
  }
  if (args.parallelism !== null && args.parallelism < 1) {
    throw new PaimonError('INVALID_ARGUMENT', `parallelism must be at least 1, got ${args.parallelism}`);
  }
  const now = ctx.clock.now();
  const olderThan = orphanCutoff(args, now, ctx.limits.orphan_min_age_ms);
  const concurrency = args.parallelism ?? ctx.limits.delete_concurrency;

  // Resolve every table first: a missing or non-Paimon table fails the call before any deletion.
  const id = ctx.parseTable(args.table, { allowWildcard: true });
  const tables: OpenedTable[] = [];
  if (id.table === '*') {
    for (const name of await ctx.listTables(id.database)) {
      tables.push(await openTable(ctx, `${id.database}.${name}`));
    }
  } else {
    // Orphan cleaning is table-wide (every branch), whichever branch the identifier names.
    tables.push(await openTable(ctx, `${id.database}.${id.table}`));
  }

  const tally = new DeletionTally();
  const paths: string[] = [];
  const outcomes: TableOutcome[] = [];
  for (const table of tables) {
    ctx.throwIfAborted();
    outcomes.push(await cleanTable(table, olderThan, args.dry_run, concurrency, tally, paths, ctx));
  }
  const total = tally.files;
  if (total > paths.length) ctx.warn(`remove_orphan_files: ${total} files, only the first ${paths.length} are listed in deleted_paths`);
  return {
    rows: [
      {
        deletedFileCount: BigInt(total),
        deletedFileTotalLenInBytes: BigInt(tally.bytes),
        changed: !args.dry_run && total > 0,
        dry_run: args.dry_run,
        pinned_snapshot_id: outcomes.length === 1 ? outcomes[0].pinned : null,
        tables: outcomes.length,
        older_than_millis: BigInt(olderThan),
        deleted_by_kind: tally.toJson(),
        deleted_paths: JSON.stringify(paths.sort()),
      },
    ],
    info: `${args.dry_run ? 'would delete' : 'deleted'} ${total} orphan file(s) in ${outcomes.length} table(s)`,
  };
}

export const removeOrphanFiles = defineProcedure({
  name: 'remove_orphan_files',
  description:
    "Delete files in the table's directories that no snapshot, tag, changelog or branch reaches and that are older than older_than (Paimon's LocalOrphanFilesClean). 'db.*' cleans every table of a database.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table 'db.tbl', or 'db.*' for every table of the database." },
    { name: 'older_than', type: 'string', description: "Only files modified before this time ('yyyy-MM-dd HH:mm:ss', proxy local time); default now - 1 day." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Only report the orphan files, delete nothing.' },
    { name: 'parallelism', type: 'int', description: 'Concurrent deletes (default procedures.delete_concurrency).' },
    { name: 'mode', type: 'string', description: "Paimon's 'local' or 'distributed'; both run in this process." },
    {
      name: 'force',
      type: 'boolean',
      default: false,
      description: 'Allow an older_than younger than procedures.orphan_min_age_ms (requires ADMIN).',
    },
  ],
  resultColumns: [
    { name: 'deletedFileCount', type: 'bigint', description: "Files deleted, or that would be with dry_run (Paimon's result)." },
    { name: 'deletedFileTotalLenInBytes', type: 'bigint', description: "Their total size in bytes (Paimon's result)." },
    { name: 'changed', type: 'boolean', description: 'Whether anything was deleted.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot of the table when the scan started (NULL for db.*).' },
    { name: 'tables', type: 'int', description: 'Tables cleaned.' },
    { name: 'older_than_millis', type: 'bigint', description: 'The cutoff used, epoch milliseconds.' },
    { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind (data, manifest, index, statistics, other).' },
    { name: 'deleted_paths', type: 'json', description: `Paths deleted (or that would be), sorted, at most ${MAX_LISTED_PATHS}.` },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  heavy: true,
  run: (args, ctx) => runRemoveOrphanFiles(args, ctx),
});

/** A path inside the table as the user sees it (relative to the table directory). */
function relativeTo(root: string, path: string): string {
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}
