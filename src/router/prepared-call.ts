/**
 * Prepared statements the proxy answers itself: a COM_STMT_PREPARE whose SQL is an intercepted
 * `CALL <catalog>.sys.<procedure>(...)` (mysql2's execute(), Connector/J with
 * useServerPrepStmts=true, BI tools). The statement gets a proxy-owned id counting down from
 * 0xFFFFFFFE, far from the FE's small counters (0xFFFFFFFF is MariaDB's "last prepared" alias).
 * On COM_STMT_EXECUTE the bound values are rendered as SQL literals in place of the `?`
 * placeholders and the statement goes through the router like a COM_QUERY.
 */
import type { ParamValue } from '../../protocol/prepared-statement.js';
import { Lexer } from './sql-lexer.js';

export interface ProxyStatement {
  id: number;
  sql: string;
  /** Offsets of the `?` placeholders in `sql`. */
  placeholders: number[];
  /** Parameter types bound by the last execute that sent them. */
  types: number[] | null;
  /** COM_STMT_SEND_LONG_DATA pieces by parameter index, until the next execute or reset. */
  longData: Map<number, Buffer>;
}

/** Offsets of `?` placeholders outside strings, identifiers and comments; null when the SQL does not lex. */
export function findPlaceholders(sql: string): number[] | null {
  try {
    const lx = new Lexer(sql);
    const out: number[] = [];
    for (;;) {
      const t = lx.next();
      if (t.kind === 'eof') return out;
      if (t.kind === 'punct' && t.value === '?') out.push(t.start);
    }
  } catch {
    return null;
  }
}

/** A bound value as a SQL literal the CALL parser reads back to the same value. */
export function sqlLiteral(v: ParamValue, backslashEscapes: boolean): string {
  if (v === null) return 'NULL';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`parameter value ${v} has no SQL literal`);
    return String(v);
  }
  const s = typeof v === 'string' ? v : v.toString('utf8');
  const escaped = backslashEscapes ? s.replace(/\\/g, '\\\\').replace(/'/g, "''") : s.replace(/'/g, "''");
  return `'${escaped}'`;
}

/** The statement text with each placeholder replaced by its value's literal. */
export function bindPlaceholders(stmt: ProxyStatement, values: readonly ParamValue[], backslashEscapes: boolean): string {
  if (values.length !== stmt.placeholders.length) {
    throw new RangeError(`statement has ${stmt.placeholders.length} parameter(s), ${values.length} bound`);
  }
  let out = '';
  let from = 0;
  stmt.placeholders.forEach((at, i) => {
    out += stmt.sql.slice(from, at) + sqlLiteral(values[i], backslashEscapes);
    from = at + 1;
  });
  return out + stmt.sql.slice(from);
}

export class ProxyStatements {
  private readonly byId = new Map<number, ProxyStatement>();
  private nextId = 0xfffffffe;

  create(sql: string, placeholders: number[]): ProxyStatement {
    while (this.byId.has(this.nextId)) this.nextId--;
    const s: ProxyStatement = { id: this.nextId, sql, placeholders, types: null, longData: new Map() };
    this.nextId = this.nextId <= 0xf0000000 ? 0xfffffffe : this.nextId - 1;
    this.byId.set(s.id, s);
    return s;
  }

  get(id: number): ProxyStatement | undefined {
    return this.byId.size === 0 ? undefined : this.byId.get(id);
  }

  delete(id: number): void {
    this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }
}
