/**
 * The SELECT that standalone mode answers over a virtual table (information_schema, a Paimon
 * system table): `SELECT * | expr [AS alias], ... FROM [catalog.][db.]table [alias]
 * [WHERE expr] [HAVING expr] [ORDER BY expr|alias|position [ASC|DESC], ...]
 * [LIMIT n [OFFSET m] | LIMIT m, n]`, with the scalar expressions of sql-expression.ts
 * (columns, literals, comparisons, LIKE, IN, IS NULL, AND/OR/NOT, arithmetic, CASE and the
 * string functions metadata queries use, as Connector/J's information_schema queries do).
 *
 * The statement is parsed by node-sql-parser (its MySQL-only build, loaded on first use) after
 * the FROM name is rewritten to a quoted two-part name: that parser does not take Doris's
 * three-part `catalog.db.table`. Joins, grouping, aggregates, DISTINCT and subqueries are
 * NOT_SUPPORTED with a message saying what works. Evaluation is pure: a parsed query and a
 * VirtualTable in, a result set out.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import type { ColumnSpec, ColumnType, TextRow } from '../route.js';
import { Lexer, isKeyword, ParseError, type Token } from '../sql-lexer.js';
import { astName, compareText, evaluateExpr, expression, isAst, truth, type ColumnRef, type Expr, type Value } from './sql-expression.js';
import type { TimeTravel } from './files-table.js';
import { isNumericColumn, type VirtualTable } from './virtual-table.js';
import { mysqlParser, regroupLogical } from '../../paimon/sql/mysql-expression.js';

export type { ColumnRef, Expr } from './sql-expression.js';

/** The table a SELECT reads, as written (catalog and database absent when not written). */
export interface TableName {
  catalog: string | null;
  db: string | null;
  table: string;
  /** Doris's time travel after the name: `FOR VERSION AS OF <snapshot id> | '<tag>'`. */
  at?: TimeTravel;
}

/** A WHERE or HAVING condition: an expression whose truth selects the row. */
export type Condition = Expr;

export type SelectItem = { kind: 'star' } | { kind: 'expr'; expr: Expr; label: string };

export interface OrderKey {
  /** An expression (a column or select alias included), or a 1-based select-list position. */
  key: Expr | number;
  desc: boolean;
}

export interface SelectQuery {
  from: TableName;
  /** The alias the table was given (`FROM information_schema.COLUMNS c`). */
  alias: string | null;
  items: SelectItem[];
  where: Condition | null;
  having: Condition | null;
  orderBy: OrderKey[];
  limit: { offset: number; count: number } | null;
}

const SUPPORTED =
  'standalone mode answers SELECT * | expr [AS alias], ... FROM [catalog.]db.table [WHERE ...] [HAVING ...] [ORDER BY ...] [LIMIT n [OFFSET m]] ' +
  'over information_schema and the Paimon system tables (tbl$snapshots, $tags, $branches, $consumers, $schemas, $options, $files [FOR VERSION AS OF <snapshot id> | \'<tag>\']), ' +
  'with columns, literals, comparisons, [NOT] LIKE, [NOT] IN, IS [NOT] NULL, AND/OR/NOT, + - * /, CASE, ' +
  'UPPER, LOWER, CONCAT, LOCATE, IF, IFNULL, COALESCE';

function notSupported(what: string): ProcedureError {
  return new ProcedureError('NOT_SUPPORTED', `${what} is not supported: ${SUPPORTED}`);
}

/**
 * The table named by the statement's FROM, where the statement is a SELECT reading one: null
 * for a SELECT without FROM (or FROM DUAL), which the session-variable reader answers.
 */
export function selectFromName(sql: string): { name: TableName; start: number; end: number } | null {
  let lx: Lexer;
  try {
    lx = new Lexer(sql);
    if (!isKeyword(lx.next(), 'SELECT')) return null;
    let depth = 0;
    for (;;) {
      const t = lx.next();
      if (t.kind === 'eof') return null;
      if (t.kind === 'punct' && t.value === '(') depth++;
      else if (t.kind === 'punct' && t.value === ')') depth--;
      else if (depth === 0 && isKeyword(t, 'FROM')) return qualifiedName(lx, sql);
    }
  } catch (e) {
    if (e instanceof ParseError) return null;
    throw e;
  }
}

function qualifiedName(lx: Lexer, sql: string): { name: TableName; start: number; end: number } | null {
  const first = lx.next();
  if (first.kind !== 'ident') throw notSupported(`'${sql.slice(first.start, first.start + 40)}' after FROM`);
  if (isKeyword(first, 'DUAL')) return null;
  const parts = [first.value];
  let end = first.end;
  for (;;) {
    const dot = lx.peek();
    if (!(dot.kind === 'punct' && dot.value === '.')) break;
    lx.next();
    const t: Token = lx.next();
    if (t.kind !== 'ident') throw notSupported(`the table name '${sql.slice(first.start, t.end)}'`);
    parts.push(t.value);
    end = t.end;
  }
  if (parts.length > 3) throw notSupported(`the table name '${parts.join('.')}' (at most catalog.db.table)`);
  const [a, b, c] = parts;
  const name: TableName = parts.length === 3 ? { catalog: a!, db: b!, table: c! } : parts.length === 2 ? { catalog: null, db: a!, table: b! } : { catalog: null, db: null, table: a! };
  const travel = timeTravel(lx, sql);
  if (travel !== null) {
    name.at = travel.at;
    end = travel.end;
  }
  return { name, start: first.start, end };
}

/**
 * `FOR VERSION AS OF <snapshot id> | '<tag>'` right after the table name (Doris's time travel
 * for Paimon tables), or null; consumed here so that the SQL parser never sees it.
 */
function timeTravel(lx: Lexer, sql: string): { at: TimeTravel; end: number } | null {
  if (!isKeyword(lx.peek(), 'FOR')) return null;
  const at = lx.peek().start;
  lx.next();
  for (const kw of ['VERSION', 'AS', 'OF']) {
    const t = lx.next();
    if (!isKeyword(t, kw)) throw notSupported(`'${sql.slice(at, t.end)}' after the table name (only FOR VERSION AS OF <snapshot id> | '<tag>')`);
  }
  const v = lx.next();
  if (v.kind === 'number' && v.integer && /^\d+$/.test(v.text) && Number(v.text) >= 1 && Number.isSafeInteger(Number(v.text))) {
    return { at: { kind: 'snapshot', id: Number(v.text) }, end: v.end };
  }
  if (v.kind === 'string' && v.value !== '') return { at: { kind: 'tag', name: v.value }, end: v.end };
  throw notSupported(`'${sql.slice(at, v.end)}' (FOR VERSION AS OF takes a snapshot id or a quoted tag name)`);
}

const str = astName;

function quoteIdent(s: string): string {
  return '`' + s.replace(/`/g, '``') + '`';
}

/** Parse a SELECT over one table; the caller has checked that it has a FROM (selectFromName). */
export function parseSelectQuery(sql: string): SelectQuery {
  const located = selectFromName(sql);
  if (located === null) throw notSupported('a SELECT without a table');
  const { name } = located;
  // The FROM name as a quoted two-part name node-sql-parser reads; the catalog is kept here.
  const rewritten = sql.slice(0, located.start) + (name.db !== null ? quoteIdent(name.db) + '.' : '') + quoteIdent(name.table) + sql.slice(located.end);
  let ast: unknown;
  try {
    // AND/OR regrouped as SQL groups them (node-sql-parser gives them one precedence).
    ast = regroupLogical(mysqlParser().astify(rewritten));
  } catch (e) {
    throw new ProcedureError('PARSE_ERROR', `You have an error in your SQL syntax: ${e instanceof Error ? e.message.slice(0, 200) : String(e)}`);
  }
  if (Array.isArray(ast)) {
    if (ast.length !== 1) throw notSupported('more than one statement in a query');
    ast = ast[0];
  }
  if (!isAst(ast) || ast['type'] !== 'select') throw notSupported('this statement');
  for (const [key, what] of [
    ['with', 'WITH'],
    ['distinct', 'DISTINCT'],
    ['groupby', 'GROUP BY'],
    ['window', 'WINDOW'],
    ['_next', 'UNION'],
    ['locking_read', 'FOR UPDATE / LOCK IN SHARE MODE'],
  ] as const) {
    const v = ast[key];
    if (v !== null && v !== undefined && !(isAst(v) && Object.values(v).every((x) => x === null || (Array.isArray(x) && x.length === 0)))) throw notSupported(what);
  }
  const into = ast['into'];
  if (isAst(into) && into['position'] !== null && into['position'] !== undefined) throw notSupported('SELECT ... INTO');
  const from = ast['from'];
  if (!Array.isArray(from) || from.length !== 1) throw notSupported('a join or a list of tables');
  const f0: unknown = from[0];
  if (!isAst(f0) || f0['join'] || f0['expr'] || typeof f0['table'] !== 'string') throw notSupported('a join or a subquery in FROM');
  const alias = str(f0['as']);
  return {
    from: name,
    alias,
    items: selectItems(ast['columns']),
    where: ast['where'] == null ? null : expression(ast['where'], notSupported),
    having: ast['having'] == null ? null : expression(ast['having'], notSupported),
    orderBy: orderKeys(ast['orderby']),
    limit: limitOf(ast['limit']),
  };
}

function selectItems(columns: unknown): SelectItem[] {
  if (columns === '*') return [{ kind: 'star' }];
  if (!Array.isArray(columns)) throw notSupported('this select list');
  return columns.map((c: unknown): SelectItem => {
    if (!isAst(c)) throw notSupported('this select list');
    const e = c['expr'];
    if (isAst(e) && e['type'] === 'column_ref' && astName(e['column']) === '*') return { kind: 'star' };
    if (isAst(e) && (e['type'] === 'aggr_func' || e['type'] === 'star')) throw notSupported('an aggregate function');
    const expr = expression(e, notSupported);
    return { kind: 'expr', expr, label: str(c['as']) ?? labelOf(expr) };
  });
}

/** The column name MySQL gives an expression without an alias (close to the text written). */
function labelOf(e: Expr): string {
  switch (e.kind) {
    case 'column':
      return e.ref.name;
    case 'literal':
      return e.value.text ?? 'NULL';
    case 'function':
      return `${e.name}(...)`;
    default:
      return e.kind.toUpperCase();
  }
}

function orderKeys(orderby: unknown): OrderKey[] {
  if (orderby === null || orderby === undefined) return [];
  if (!Array.isArray(orderby)) throw notSupported('this ORDER BY');
  return orderby.map((o: unknown): OrderKey => {
    if (!isAst(o)) throw notSupported('this ORDER BY');
    const desc = String(o['type'] ?? 'ASC').toUpperCase() === 'DESC';
    const key = expression(o['expr'], notSupported);
    if (key.kind === 'literal' && key.value.numeric && key.value.text !== null && /^\d+$/.test(key.value.text)) return { key: Number(key.value.text), desc };
    return { key, desc };
  });
}

function limitOf(limit: unknown): { offset: number; count: number } | null {
  if (!isAst(limit) || !Array.isArray(limit['value']) || limit['value'].length === 0) return null;
  const nums = limit['value'].map((v: unknown) => {
    const l = expression(v, notSupported);
    if (l.kind !== 'literal' || !l.value.numeric || l.value.text === null || !/^\d+$/.test(l.value.text)) throw notSupported('LIMIT with something other than row counts');
    return Number(l.value.text);
  });
  if (nums.length === 1) return { offset: 0, count: nums[0]! };
  // `LIMIT offset, count` or `LIMIT count OFFSET offset`.
  return limit['seperator'] === ',' ? { offset: nums[0]!, count: nums[1]! } : { offset: nums[1]!, count: nums[0]! };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

function literalText(e: Expr): string | null {
  return e.kind === 'literal' ? e.value.text : null;
}

function isColumn(e: Expr, column: string): boolean {
  return e.kind === 'column' && e.ref.name.toLowerCase() === column.toLowerCase();
}

/**
 * The values a condition requires a column to have when every matching row must have one of
 * them (a top-level AND chain with `col = 'x'` or `col IN (...)`), or null when it does not
 * restrict the column that way. Lets information_schema read only the tables asked for.
 */
export function requiredValues(where: Condition | null, column: string): string[] | null {
  if (where === null) return null;
  if (where.kind === 'binary' && (where.op === 'AND' || where.op === '&&')) {
    const l = requiredValues(where.left, column);
    const r = requiredValues(where.right, column);
    if (l === null) return r;
    if (r === null) return l;
    return l.filter((v) => r.includes(v));
  }
  if (where.kind === 'binary' && where.op === '=') {
    const v = isColumn(where.left, column) ? literalText(where.right) : isColumn(where.right, column) ? literalText(where.left) : null;
    return v === null ? null : [v];
  }
  if (where.kind === 'in' && !where.negated && isColumn(where.left, column) && where.list.every((x) => x.kind === 'literal')) {
    return where.list.flatMap((x) => (x.kind === 'literal' && x.value.text !== null ? [x.value.text] : []));
  }
  return null;
}

interface Resolved {
  index: number;
  column: ColumnSpec;
}

function resolver(q: SelectQuery, table: VirtualTable, clause: string): (ref: ColumnRef) => Resolved {
  const short = q.from.table.toLowerCase();
  return (ref) => {
    if (ref.qualifier !== null) {
      const qual = ref.qualifier.toLowerCase();
      if (qual !== short && qual !== (q.alias ?? '').toLowerCase()) {
        throw new ProcedureError('COLUMN_NOT_FOUND', `Unknown column '${ref.qualifier}.${ref.name}' in '${clause}'`);
      }
    }
    const lower = ref.name.toLowerCase();
    const index = table.columns.findIndex((c) => c.name.toLowerCase() === lower);
    if (index < 0) {
      throw new ProcedureError('COLUMN_NOT_FOUND', `Unknown column '${ref.name}' in '${clause}': ${table.name} has ${table.columns.map((c) => c.name).join(', ')}`);
    }
    return { index, column: table.columns[index]! };
  };
}

function reader(resolve: (ref: ColumnRef) => Resolved, row: TextRow): (ref: ColumnRef) => Value {
  return (ref) => {
    const { index, column } = resolve(ref);
    return { text: row[index] ?? null, numeric: isNumericColumn(column) };
  };
}

/** The result type of a computed column: a number type when every value is a number. */
function typeOf(values: Value[]): ColumnType {
  const present = values.filter((v) => v.text !== null);
  if (present.length === 0 || !present.every((v) => v.numeric)) return 'string';
  return present.every((v) => /^-?\d+$/.test(v.text!)) ? 'bigint' : 'decimal';
}

/** Run a parsed SELECT over a table: filter, project, HAVING, order, limit. */
export function evaluateSelect(q: SelectQuery, table: VirtualTable): { columns: ColumnSpec[]; rows: TextRow[] } {
  const whereResolve = resolver(q, table, 'where clause');
  const source = q.where === null ? table.rows : table.rows.filter((r) => truth(evaluateExpr(q.where!, reader(whereResolve, r))) === true);

  const fieldResolve = resolver(q, table, 'field list');
  type Output = { label: string; type: ColumnType | null; value: (row: TextRow) => Value };
  const outputs: Output[] = [];
  for (const item of q.items) {
    if (item.kind === 'star') {
      table.columns.forEach((column, index) => outputs.push({ label: column.name, type: column.type, value: (r) => ({ text: r[index] ?? null, numeric: isNumericColumn(column) }) }));
    } else {
      const expr = item.expr;
      const type = expr.kind === 'column' ? fieldResolve(expr.ref).column.type : null;
      outputs.push({ label: item.label, type, value: (r) => evaluateExpr(expr, reader(fieldResolve, r)) });
    }
  }
  let rows = source.map((r) => ({ source: r, out: outputs.map((o) => o.value(r)) }));

  // HAVING and ORDER BY read a select alias first, then the table's columns (MySQL's lookup).
  const aliasReader = (clause: string) => {
    const resolve = resolver(q, table, clause);
    return (row: { source: TextRow; out: Value[] }) =>
      (ref: ColumnRef): Value => {
        if (ref.qualifier === null) {
          const i = outputs.findIndex((o) => o.label.toLowerCase() === ref.name.toLowerCase());
          if (i >= 0) return row.out[i]!;
        }
        return reader(resolve, row.source)(ref);
      };
  };
  if (q.having !== null) {
    const read = aliasReader('having clause');
    rows = rows.filter((r) => truth(evaluateExpr(q.having!, read(r))) === true);
  }
  if (q.orderBy.length > 0) {
    const read = aliasReader('order clause');
    const keyed = rows.map((r) => ({
      r,
      keys: q.orderBy.map((o) => {
        if (typeof o.key === 'number') {
          const v = r.out[o.key - 1];
          if (v === undefined) throw new ProcedureError('COLUMN_NOT_FOUND', `Unknown column '${o.key}' in 'order clause'`);
          return v;
        }
        return evaluateExpr(o.key, read(r));
      }),
    }));
    keyed.sort((a, b) => {
      for (let k = 0; k < q.orderBy.length; k++) {
        const x = a.keys[k]!;
        const y = b.keys[k]!;
        // MySQL sorts NULL first ascending, last descending.
        const c = x.text === null ? (y.text === null ? 0 : -1) : y.text === null ? 1 : compareText(x.text, y.text, x.numeric && y.numeric);
        if (c !== 0) return q.orderBy[k]!.desc ? -c : c;
      }
      return 0;
    });
    rows = keyed.map((k) => k.r);
  }
  if (q.limit !== null) rows = rows.slice(q.limit.offset, q.limit.offset + q.limit.count);
  return {
    columns: outputs.map((o, i) => ({ name: o.label, type: o.type ?? typeOf(rows.map((r) => r.out[i]!)) })),
    rows: rows.map((r) => r.out.map((v) => v.text)),
  };
}
