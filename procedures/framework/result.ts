/**
 * What a procedure returns, and how it becomes the replies of a CALL: one text result set in
 * the declared column order (Paimon's Spark columns first, then ours), then the final OK a
 * CALL ends with (MySQL sends it after the procedure's result sets), which also carries the
 * warnings. A procedure without result columns answers with the OK alone.
 */
import type { ColumnSpec, ColumnType, LocalReply, TextRow, Warning } from './reply.js';
import { ProcedureError } from './errors.js';
import type { ProcedureSignature, ResultColumnSpec } from './signature.js';

export type ResultValue = string | number | bigint | boolean | Date | null;

/** One row: a value for every declared result column, by column name. */
export type ResultRow = Record<string, ResultValue>;

export interface ProcedureResult {
  rows: ResultRow[];
  /** Short human summary put in the final OK's info field (e.g. "3 snapshots expired"). */
  info?: string;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** DATETIME text in UTC with milliseconds: `YYYY-MM-DD HH:MM:SS.mmm`. */
export function formatDatetimeUtc(d: Date): string {
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
  );
}

/**
 * The MySQL text-protocol rendering of one value for a column type. A value that does not
 * fit its declared column is a bug in the procedure, reported as INTERNAL_ERROR rather
 * than sent to a client as something it would misread.
 */
export function renderValue(procedure: string, col: { name: string; type: ColumnType }, v: ResultValue): string | null {
  if (v === null) return null;
  const bad = (): never => {
    throw new ProcedureError(
      'INTERNAL_ERROR',
      `internal error: procedure ${procedure} returned ${typeof v} ${String(v)} for ${col.type} column ${col.name}`,
    );
  };
  switch (col.type) {
    case 'string':
    case 'json':
      return typeof v === 'string' ? v : bad();
    case 'boolean':
      // BOOLEAN is TINYINT(1) in MySQL: 1 / 0.
      return typeof v === 'boolean' ? (v ? '1' : '0') : bad();
    case 'int':
    case 'bigint':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      return bad();
    case 'double':
      return typeof v === 'number' && Number.isFinite(v) ? String(v) : bad();
    case 'decimal':
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return v;
      return bad();
    case 'datetime':
      if (v instanceof Date && !Number.isNaN(v.getTime())) return formatDatetimeUtc(v);
      if (typeof v === 'string') return v;
      return bad();
  }
}

export function renderRows(sig: Pick<ProcedureSignature, 'name' | 'resultColumns'>, rows: readonly ResultRow[]): TextRow[] {
  const cols = sig.resultColumns;
  return rows.map((row) => {
    for (const key of Object.keys(row)) {
      if (!cols.some((c) => c.name === key)) {
        throw new ProcedureError('INTERNAL_ERROR', `internal error: procedure ${sig.name} returned undeclared column ${key}`);
      }
    }
    return cols.map((c) => {
      if (!(c.name in row)) {
        throw new ProcedureError('INTERNAL_ERROR', `internal error: procedure ${sig.name} returned no value for column ${c.name}`);
      }
      return renderValue(sig.name, c, row[c.name]!);
    });
  });
}

export function columnSpecs(cols: readonly ResultColumnSpec[]): ColumnSpec[] {
  return cols.map((c) => ({ name: c.name, type: c.type }));
}

/** The replies of a successful CALL: [resultset, ok] (or [ok] when nothing is declared). */
export function toCallReplies(
  sig: Pick<ProcedureSignature, 'name' | 'resultColumns'>,
  result: ProcedureResult,
  warnings: Warning[] = [],
): LocalReply[] {
  const ok: LocalReply = { kind: 'ok', affectedRows: 0, ...(result.info ? { info: result.info } : {}), ...(warnings.length ? { warnings } : {}) };
  if (sig.resultColumns.length === 0) {
    if (result.rows.length > 0) {
      throw new ProcedureError('INTERNAL_ERROR', `internal error: procedure ${sig.name} declares no result columns but returned rows`);
    }
    return [ok];
  }
  return [{ kind: 'resultset', columns: columnSpecs(sig.resultColumns), rows: renderRows(sig, result.rows) }, ok];
}

/** The error reply for any failure. */
export function errorReply(e: ProcedureError): LocalReply {
  return { kind: 'error', errno: e.errno, sqlState: e.sqlState, message: e.message };
}
