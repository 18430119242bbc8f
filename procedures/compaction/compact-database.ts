/**
 * `compact_database(including_databases, mode, including_tables, excluding_tables, table_options,
 * partition_idle_time, compact_strategy)` in Flink's positional order (Flink's
 * `CompactDatabaseProcedure`; Spark's `options` binds to table_options), plus our `dry_run` and
 * `summary`. The tables are chosen as Paimon chooses them (src/paimon/compact/database-compaction.ts:
 * Java-regex full matches on database names and on `db.table`) and compacted one at a time by the
 * compact procedure itself (compact.ts `runCompact`, each table its own COMPACT commit within
 * `compact_memory_budget_mb`). As in Spark's procedure, one table's failure is recorded and the
 * others still run; unlike Spark we return one row per table (its outcome, snapshot, files, bytes,
 * error) and Spark's single line "Compact database finished. Success: n, Failed: m" as the OK's
 * info, or as the only row with `summary => true`.
 *
 * `mode`: Flink's `divided` (one sink per table) and `combined` (one sink for all tables, which in a
 * streaming job also picks up tables created later) are job topologies; a CALL here is one batch
 * run over the tables listed when it starts, so both modes do the same work. Other values fail as
 * Flink's `MultiTablesSinkMode.fromString` does.
 *
 * A stop (KILL, cancel_job, timeout) aborts the table in progress before its commit (its files are
 * cleaned up by compactTable, nothing of it is committed) and starts no further table; the tables
 * already committed stay committed and the error names them.
 *
 * Privilege: ALTER within the catalog; each table additionally needs ALTER on itself when the
 * context can check per-table grants (TablePrivilegeCheck); a table without it is skipped with a
 * row saying so.
 */
import { databaseCompactionFilter, selectTables, type TableRef } from '../../src/paimon/compact/database-compaction.js';
import { UnsupportedJavaRegexError } from '../../src/paimon/compact/java-regex.js';
import { abortError, ProcedureError, toProcedureError } from '../framework/errors.js';
import type { ProcedureContext, ProgressUpdate } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult, ResultRow, ResultValue } from '../framework/result.js';
import { quote } from '../framework/quote.js';
import { didYouMean } from '../framework/suggest.js';
import { runCompact } from './compact.js';

/**
 * The per-table privilege check a catalog-wide procedure needs. A context that offers it (the
 * proxy's, from the caller's grants) is asked before each table; without it, the catalog-level
 * check the executor already made covers every table.
 */
export interface TablePrivilegeCheck {
  mayOnTable(privilege: 'ALTER', database: string, table: string): Promise<boolean>;
}

function privilegeCheckOf(ctx: ProcedureContext): TablePrivilegeCheck | null {
  const c = ctx as ProcedureContext & Partial<TablePrivilegeCheck>;
  return typeof c.mayOnTable === 'function' ? { mayOnTable: c.mayOnTable.bind(c) } : null;
}

const MODES = ['divided', 'combined'] as const;

/** `` `db`.`t` ``: a table name from the catalog listing as an identifier the table argument parses back exactly. */
const identifierOf = (r: TableRef): string => `\`${r.database.replace(/`/g, '``')}\`.\`${r.table.replace(/`/g, '``')}\``;

type Outcome = 'compacted' | 'unchanged' | 'planned' | 'failed' | 'skipped';

interface TableRow extends ResultRow {
  result: null;
  database: string;
  table: string;
  outcome: Outcome;
  snapshot_id: ResultValue;
  files_before: ResultValue;
  files_after: ResultValue;
  bytes_before: ResultValue;
  bytes_after: ResultValue;
  error_code: string | null;
  message: string | null;
}

const noCounts = { snapshot_id: null, files_before: null, files_after: null, bytes_before: null, bytes_after: null };

/** The context compact runs with for one table: everything the call's, progress named after the table. */
function tableContext(ctx: ProcedureContext, ref: TableRef, index: number, total: number): ProcedureContext {
  const label = `${ref.database}.${ref.table} (table ${index + 1} of ${total})`;
  return {
    procedure: ctx.procedure,
    catalog: ctx.catalog,
    caller: ctx.caller,
    signal: ctx.signal,
    dryRun: ctx.dryRun,
    limits: ctx.limits,
    clock: ctx.clock,
    logger: ctx.logger,
    progress: (u: ProgressUpdate) =>
      ctx.progress({
        phase: u.phase,
        done: index,
        total,
        message: `${label}: ${u.phase}${u.done !== undefined ? ` ${u.done}${u.total !== undefined ? `/${u.total}` : ''}` : ''}${u.message !== undefined ? `, ${u.message}` : ''}`,
      }),
    warn: (m, code) => ctx.warn(`${ref.database}.${ref.table}: ${m}`, code),
    markCommitted: () => ctx.markCommitted(),
    reportAffected: (id) => ctx.reportAffected(id),
    throwIfAborted: () => ctx.throwIfAborted(),
    parseTable: (text, o) => ctx.parseTable(text, o),
    resolveTable: (text, o) => ctx.resolveTable(text, o),
    listTables: (db) => ctx.listTables(db),
  };
}

export interface CompactDatabaseArgs {
  including_databases: string | null;
  mode: string | null;
  including_tables: string | null;
  excluding_tables: string | null;
  table_options: string | null;
  partition_idle_time: string | null;
  compact_strategy: string | null;
  dry_run: boolean;
  summary: boolean;
}

export async function runCompactDatabase(args: CompactDatabaseArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const mode = args.mode === null || args.mode.trim() === '' ? 'divided' : args.mode.trim().toLowerCase();
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new ProcedureError('INVALID_ARGUMENT', `Unsupported mode: ${quote(args.mode!)} (mode is 'divided' or 'combined').${didYouMean(mode, MODES.map((m) => ({ name: m, canonical: m })))}`);
  }
  let filter;
  try {
    filter = databaseCompactionFilter({ includingDatabases: args.including_databases, includingTables: args.including_tables, excludingTables: args.excluding_tables });
  } catch (e) {
    if (e instanceof UnsupportedJavaRegexError) throw new ProcedureError('NOT_SUPPORTED', e.message, { cause: e });
    throw toProcedureError(e);
  }
  ctx.progress({ phase: 'plan', message: 'listing databases and tables' });
  const tables = await selectTables(ctx.catalog, filter);
  const check = privilegeCheckOf(ctx);
  const rows: TableRow[] = [];
  for (const [i, ref] of tables.entries()) {
    if (ctx.signal.aborted) throw stopped(ctx, rows, tables.length);
    const base = { result: null, database: ref.database, table: ref.table } as const;
    if (check !== null && !(await check.mayOnTable('ALTER', ref.database, ref.table))) {
      rows.push({ ...base, outcome: 'skipped', ...noCounts, error_code: 'TABLE_ACCESS_DENIED', message: `ALTER on ${ref.database}.${ref.table} is needed to compact it` });
      continue;
    }
    try {
      const r = await runCompact(
        {
          table: identifierOf(ref),
          partitions: null,
          compact_strategy: args.compact_strategy,
          order_strategy: null,
          order_by: null,
          where: null,
          options: args.table_options,
          partition_idle_time: args.partition_idle_time,
          buckets: null,
          dry_run: args.dry_run,
        },
        tableContext(ctx, ref, i, tables.length),
      );
      const row = r.rows[0] ?? {};
      const snapshot = row['snapshot_id'] ?? null;
      const skipped = row['message'] ?? null;
      rows.push({
        ...base,
        outcome: args.dry_run ? 'planned' : snapshot !== null ? 'compacted' : 'unchanged',
        snapshot_id: snapshot,
        files_before: row['files_before'] ?? null,
        files_after: row['files_after'] ?? null,
        bytes_before: row['bytes_before'] ?? null,
        bytes_after: row['bytes_after'] ?? null,
        error_code: null,
        message: typeof skipped === 'string' ? skipped : null,
      });
    } catch (e) {
      if (ctx.signal.aborted) throw stopped(ctx, rows, tables.length);
      const pe = toProcedureError(e);
      ctx.logger.warn({ table: `${ref.database}.${ref.table}`, code: pe.code }, 'compact_database: table failed');
      rows.push({ ...base, outcome: 'failed', ...noCounts, error_code: pe.code, message: pe.message });
    }
    ctx.progress({ phase: 'compact', done: i + 1, total: tables.length, message: `${ref.database}.${ref.table}: ${rows[rows.length - 1]!.outcome}` });
  }
  const line = summaryLine(rows);
  if (tables.length === 0) ctx.warn('no tables to be compacted: no table matched including_databases / including_tables / excluding_tables');
  if (args.summary) {
    return { rows: [{ result: line, database: null, table: null, outcome: null, ...noCounts, error_code: null, message: null }], info: line };
  }
  return { rows, info: args.dry_run ? `${line} (dry run: nothing committed)` : line };
}

/** Spark's result line; a skipped table counts as failed there (Spark would have thrown on it). */
function summaryLine(rows: readonly TableRow[]): string {
  const failed = rows.filter((r) => r.outcome === 'failed' || r.outcome === 'skipped').length;
  return `Compact database finished. Success: ${rows.length - failed}, Failed: ${failed}`;
}

/** The stop error, naming what was committed before it. */
function stopped(ctx: ProcedureContext, rows: readonly TableRow[], total: number): ProcedureError {
  const done = rows.filter((r) => r.outcome === 'compacted');
  const e = abortError(ctx.signal, done.length > 0);
  const list = done.map((r) => `${r.database}.${r.table} (snapshot ${String(r.snapshot_id)})`).join(', ');
  return new ProcedureError(
    e.code,
    `${e.message} compact_database stopped after ${rows.length} of ${total} tables; committed: ${list === '' ? 'none' : list}; the table in progress was not committed.`,
    { committed: done.length > 0, cause: e },
  );
}

export const compactDatabase = defineProcedure({
  name: 'compact_database',
  description:
    "Compact every table of the matching databases (Paimon's compact_database): tables chosen by Java-regex full matches, compacted one at a time as compact does (one COMPACT snapshot each); a failing table is reported and the others still run. One row per table; Spark's summary line as the OK info (or the only row with summary => true).",
  params: [
    { name: 'including_databases', type: 'string', description: "Java regex a database name must fully match (default '.*')." },
    { name: 'mode', type: 'string', description: "Flink's 'divided' (default) or 'combined': the same batch run here (see the README)." },
    { name: 'including_tables', type: 'string', description: "Java regex 'db.table' must fully match (default '.*')." },
    { name: 'excluding_tables', type: 'string', description: "Java regex: a 'db.table' that fully matches it is left out." },
    { name: 'table_options', aliases: ['options'], type: 'string', description: "Dynamic table options for every table: 'k1=v1,k2=v2'." },
    { name: 'partition_idle_time', type: 'string', description: "Only partitions without new files for this long (e.g. '1 d'), as compact." },
    { name: 'compact_strategy', type: 'string', description: "'full' (default) or 'minor', as compact." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan every table; write and commit nothing.' },
    { name: 'summary', type: 'boolean', default: false, description: "Return only Spark's single row 'Compact database finished. Success: n, Failed: m'." },
  ],
  resultColumns: [
    { name: 'result', type: 'string', description: "Spark's summary line (only on the summary => true row; also the OK's info)." },
    { name: 'database', type: 'string', description: 'Database of the table.' },
    { name: 'table', type: 'string', description: 'The table.' },
    { name: 'outcome', type: 'string', description: "'compacted' (snapshot committed), 'unchanged' (nothing to compact), 'planned' (dry run), 'failed', 'skipped' (no ALTER)." },
    { name: 'snapshot_id', type: 'bigint', description: 'The COMPACT snapshot committed for the table (null when none).' },
    { name: 'files_before', type: 'bigint', description: 'Data files rewritten or upgraded (removed from the view).' },
    { name: 'files_after', type: 'bigint', description: 'Data files written or upgraded.' },
    { name: 'bytes_before', type: 'bigint', description: 'Bytes of files_before.' },
    { name: 'bytes_after', type: 'bigint', description: 'Bytes of files_after.' },
    { name: 'error_code', type: 'string', description: 'Error code of a failed or skipped table (the README error table).' },
    { name: 'message', type: 'string', description: 'The error, or why nothing was compacted.' },
  ],
  privilege: { privilege: 'ALTER', on: 'catalog' },
  destructive: false,
  heavy: true,
  run: (args, ctx) => runCompactDatabase(args, ctx),
});
