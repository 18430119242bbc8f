/**
 * Standalone mode (no FE configured): answers the statements clients send when they connect
 * (mysql/mariadb CLI, Connector/J, mysql2, DBeaver; mysql-protocol.md §9) and the few session
 * statements that make sense without an FE: SELECT of system variables and session functions,
 * SHOW VARIABLES / DATABASES / TABLES / CATALOGS / WARNINGS / PROCEDURES and the metadata
 * SHOWs tools probe, SET, USE, SWITCH, KILL, and transaction no-ops. Anything else gets
 * STANDALONE_UNSUPPORTED, which says no FE is configured and what the proxy can do.
 */
import type { CatalogProvider } from '../../procedures/framework/catalog.js';
import { ProcedureError, toProcedureError } from '../../procedures/framework/errors.js';
import { procedureListing } from '../../procedures/framework/docs.js';
import type { ProcedureRegistry } from '../../procedures/framework/registry.js';
import type { ColumnSpec, ColumnType, LocalReply, SessionView, TextRow, Warning } from './route.js';
import { Lexer, ParseError, isKeyword, type Token } from './sql-lexer.js';
import { defaultVariables, type VariableDef } from './standalone-variables.js';

/** Per-connection state kept by the proxy in standalone mode. */
export interface StandaloneSessionState {
  /** Session variables set with SET (lower-case names); falls back to the defaults. */
  vars: Map<string, VariableDef>;
  /** User variables (`SET @x = ...`). */
  userVars: Map<string, string | null>;
  /** Warnings of the last statement, for SHOW WARNINGS. */
  lastWarnings: Warning[];
  /** Doris remembers the last database used in each catalog and restores it on SWITCH. */
  lastDbOfCatalog: Map<string, string>;
}

export function newStandaloneState(): StandaloneSessionState {
  return { vars: new Map(), userVars: new Map(), lastWarnings: [], lastDbOfCatalog: new Map() };
}

export interface StandaloneEnv {
  catalogs: CatalogProvider;
  registry: ProcedureRegistry;
  /** The session's current catalog (null session catalog resolved to the default). */
  currentCatalog(session: SessionView): string | null;
  state(session: SessionView): StandaloneSessionState;
  /** KILL [QUERY|CONNECTION] id (router-owned: it knows the running calls). */
  kill(target: number, mode: 'query' | 'connection', session: SessionView): LocalReply;
}

const DEFAULTS = defaultVariables();
const OK: LocalReply = { kind: 'ok' };

function err(e: ProcedureError): LocalReply {
  return { kind: 'error', errno: e.errno, sqlState: e.sqlState, message: e.message };
}

function unsupported(sql: string, env: StandaloneEnv): ProcedureError {
  const cats = env.catalogs.names();
  const head = sql.trim().replace(/\s+/g, ' ').slice(0, 60);
  return new ProcedureError(
    'STANDALONE_UNSUPPORTED',
    `No Doris FE is configured, so '${head}' cannot run here. This proxy runs Paimon procedures: ` +
      `CALL <catalog>.sys.<procedure>(...) with catalog ${cats.length ? cats.map((c) => `'${c}'`).join(', ') : '(none configured)'} ` +
      `(SHOW PROCEDURES lists them), and answers SHOW CATALOGS / DATABASES / TABLES, USE, SWITCH, SET and SHOW VARIABLES.`,
  );
}

/** Token cursor with the few helpers the grammar below needs. */
class Cursor {
  readonly lx: Lexer;
  constructor(readonly sql: string) {
    this.lx = new Lexer(sql);
  }
  peek(): Token {
    return this.lx.peek();
  }
  /** End offset of the last token taken. */
  lastEnd = 0;
  next(): Token {
    const t = this.lx.next();
    this.lastEnd = t.end;
    return t;
  }
  kw(k: string): boolean {
    if (isKeyword(this.peek(), k)) {
      this.next();
      return true;
    }
    return false;
  }
  isKw(k: string): boolean {
    return isKeyword(this.peek(), k);
  }
  punct(p: string): boolean {
    const t = this.peek();
    if (t.kind === 'punct' && t.value === p) {
      this.next();
      return true;
    }
    return false;
  }
  expectKw(k: string): void {
    const t = this.next();
    if (!isKeyword(t, k)) throw this.lx.error(t.start, `'${k}'`);
  }
  /** Identifier (plain or back-quoted) or null. */
  ident(): string | null {
    const t = this.peek();
    if (t.kind === 'ident') {
      this.next();
      return t.value;
    }
    return null;
  }
  expectIdent(what: string): string {
    const t = this.next();
    if (t.kind !== 'ident') throw this.lx.error(t.start, what);
    return t.value;
  }
  expectString(what: string): string {
    const t = this.next();
    if (t.kind !== 'string') throw this.lx.error(t.start, what);
    return t.value;
  }
  /** Optional `;`, then the end. A second statement is refused (no multi-statements here). */
  end(): void {
    this.punct(';');
    const t = this.next();
    if (t.kind !== 'eof') throw this.lx.error(t.start, 'the end of the statement');
  }
  atEnd(): boolean {
    const t = this.peek();
    return t.kind === 'eof' || (t.kind === 'punct' && t.value === ';');
  }
}

/** MySQL LIKE pattern (% _ and backslash escapes), case-insensitive as SHOW's collations are. */
export function likeToRegExp(pattern: string): RegExp {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(re + '$', 'is');
}

function resultset(columns: [string, ColumnType][], rows: TextRow[]): LocalReply {
  return { kind: 'resultset', columns: columns.map(([name, type]): ColumnSpec => ({ name, type })), rows };
}

function lookupVar(state: StandaloneSessionState, name: string, scope: 'session' | 'global'): VariableDef | undefined {
  const key = name.toLowerCase();
  if (scope === 'session') {
    const v = state.vars.get(key);
    if (v !== undefined) return v;
  }
  return DEFAULTS.get(key);
}

function allVars(state: StandaloneSessionState, scope: 'session' | 'global'): [string, string | null][] {
  const m = new Map<string, string | null>();
  for (const [k, v] of DEFAULTS) m.set(k, v.value);
  if (scope === 'session') for (const [k, v] of state.vars) m.set(k, v.value);
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Answer one statement. Never throws: every failure is an error reply. */
export async function respondStandalone(sql: string, session: SessionView, env: StandaloneEnv): Promise<LocalReply[]> {
  const state = env.state(session);
  let replies: LocalReply[];
  try {
    replies = await dispatch(new Cursor(sql), sql, session, env, state);
  } catch (e) {
    if (e instanceof ParseError) {
      // A statement we cannot read is one we do not support; say so rather than blame its syntax.
      replies = [err(unsupported(sql, env))];
    } else {
      replies = [err(toProcedureError(e))];
    }
  }
  // SHOW WARNINGS reports on the statement before it, so it leaves them in place.
  if (!/^show\s+(count\s*\(\s*\*\s*\)\s+)?(warnings|errors)\b/i.test(stripLeadingComments(sql))) {
    rememberWarnings(state, replies);
  }
  return replies;
}

/** Keep the warnings (or the error) of a statement's last reply for SHOW WARNINGS. */
export function rememberWarnings(state: StandaloneSessionState, replies: readonly LocalReply[]): void {
  const last = replies[replies.length - 1];
  state.lastWarnings =
    last?.kind === 'ok' ? (last.warnings ?? []) : last?.kind === 'error' ? [{ level: 'Error', code: last.errno, message: last.message }] : [];
}

function stripLeadingComments(sql: string): string {
  try {
    const lx = new Lexer(sql);
    lx.skipTrivia();
    return sql.slice(lx.pos);
  } catch {
    return sql;
  }
}

async function dispatch(c: Cursor, sql: string, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): Promise<LocalReply[]> {
  const t = c.peek();
  if (t.kind !== 'ident' || t.quoted) throw unsupported(sql, env);
  switch (t.value.toUpperCase()) {
    case 'SELECT':
      c.next();
      return [select(c, session, env, state)];
    case 'SHOW':
      c.next();
      return [await show(c, sql, session, env, state)];
    case 'SET':
      c.next();
      return [set(c, state)];
    case 'USE': {
      c.next();
      const first = c.expectIdent('a database name');
      let catalog: string | null = null;
      let db = first;
      if (c.punct('.')) {
        catalog = first;
        db = c.expectIdent('a database name');
      }
      c.end();
      return [await useDatabase(session, env, state, catalog, db)];
    }
    case 'SWITCH': {
      c.next();
      const cat = c.expectIdent('a catalog name');
      c.end();
      return [switchCatalog(session, env, state, cat)];
    }
    case 'KILL': {
      c.next();
      let mode: 'query' | 'connection' = 'connection';
      if (c.kw('QUERY')) mode = 'query';
      else c.kw('CONNECTION');
      const n = c.next();
      if (n.kind !== 'number' || !n.integer) throw unsupported(sql, env);
      c.end();
      const id = Number(BigInt(n.text));
      return [env.kill(id, mode, session)];
    }
    case 'BEGIN':
    case 'COMMIT':
    case 'ROLLBACK':
    case 'START':
      // No transactions exist here; procedures commit on their own. Accepting these keeps
      // tools that wrap statements in transactions working.
      return [OK];
    default:
      throw unsupported(sql, env);
  }
}

// ---------------------------------------------------------------------------------------------
// SELECT <items> [FROM DUAL] [LIMIT n [, m] | LIMIT n OFFSET m]

function select(c: Cursor, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): LocalReply {
  const cols: [string, ColumnType][] = [];
  const row: TextRow = [];
  do {
    const start = c.peek().start;
    const { value, type } = selectExpr(c, session, env, state);
    const exprText = c.sql.slice(start, c.lastEnd).trim();
    let name = exprText;
    if (c.kw('AS')) {
      const a = c.peek();
      if (a.kind === 'ident' || a.kind === 'string') {
        c.next();
        name = a.value;
      } else throw c.lx.error(a.start, 'an alias');
    } else {
      const a = c.peek();
      if ((a.kind === 'ident' && !isKeyword(a, 'FROM') && !isKeyword(a, 'LIMIT')) || a.kind === 'string') {
        c.next();
        name = a.value;
      }
    }
    cols.push([name, type]);
    row.push(value);
  } while (c.punct(','));
  let rows: TextRow[] = [row];
  if (c.kw('FROM')) c.expectKw('DUAL');
  if (c.kw('LIMIT')) {
    const n = c.next();
    if (n.kind !== 'number' || !n.integer) throw c.lx.error(n.start, 'a row count');
    let limit = Number(n.text);
    if (c.punct(',')) {
      const m = c.next();
      if (m.kind !== 'number' || !m.integer) throw c.lx.error(m.start, 'a row count');
      // LIMIT offset, count
      rows = rows.slice(limit);
      limit = Number(m.text);
    } else if (c.kw('OFFSET')) {
      const m = c.next();
      if (m.kind !== 'number' || !m.integer) throw c.lx.error(m.start, 'an offset');
      rows = rows.slice(Number(m.text));
    }
    rows = rows.slice(0, limit);
  }
  c.end();
  return resultset(cols, rows);
}

const FUNCTIONS = new Set(['DATABASE', 'SCHEMA', 'USER', 'CURRENT_USER', 'SESSION_USER', 'SYSTEM_USER', 'CONNECTION_ID', 'VERSION', 'CURRENT_CATALOG', 'NOW', 'CURRENT_TIMESTAMP', 'UTC_TIMESTAMP', 'LAST_INSERT_ID', 'ROW_COUNT', 'FOUND_ROWS']);

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function selectExpr(c: Cursor, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): { value: string | null; type: ColumnType } {
  const t = c.next();
  if (t.kind === 'punct' && t.value === '@@') {
    let scope: 'session' | 'global' = 'session';
    let name = c.expectIdent('a variable name');
    if (c.punct('.')) {
      const lower = name.toLowerCase();
      if (lower === 'global') scope = 'global';
      else if (lower !== 'session' && lower !== 'local') throw c.lx.error(t.start, 'a variable name');
      name = c.expectIdent('a variable name');
    }
    const v = lookupVar(state, name, scope);
    if (v === undefined) {
      throw new ProcedureError('UNKNOWN_SYSTEM_VARIABLE', `Unknown system variable '${name}'`);
    }
    return { value: v.value, type: v.type };
  }
  if (t.kind === 'punct' && t.value === '@') {
    const name = c.expectIdent('a user variable name');
    return { value: state.userVars.get(name.toLowerCase()) ?? null, type: 'string' };
  }
  if (t.kind === 'string') {
    let v = t.value;
    while (c.peek().kind === 'string') v += (c.next() as { value: string }).value;
    return { value: v, type: 'string' };
  }
  if (t.kind === 'number') return { value: t.text, type: t.integer ? 'bigint' : 'decimal' };
  if (t.kind === 'punct' && t.value === '-') {
    const n = c.next();
    if (n.kind !== 'number') throw c.lx.error(n.start, 'a number');
    return { value: '-' + n.text, type: n.integer ? 'bigint' : 'decimal' };
  }
  if (isKeyword(t, 'NULL')) return { value: null, type: 'string' };
  if (isKeyword(t, 'TRUE')) return { value: '1', type: 'bigint' };
  if (isKeyword(t, 'FALSE')) return { value: '0', type: 'bigint' };
  if (t.kind === 'ident' && !t.quoted && FUNCTIONS.has(t.value.toUpperCase())) {
    const f = t.value.toUpperCase();
    // CURRENT_USER and CURRENT_TIMESTAMP may be written without parentheses.
    if (c.punct('(')) {
      const close = c.next();
      if (!(close.kind === 'punct' && close.value === ')')) throw c.lx.error(close.start, "')'");
    } else if (f !== 'CURRENT_USER' && f !== 'CURRENT_TIMESTAMP') {
      throw c.lx.error(c.peek().start, "'('");
    }
    const host = session.clientAddress.replace(/:\d+$/, '');
    switch (f) {
      case 'DATABASE':
      case 'SCHEMA':
        return { value: session.currentDatabase, type: 'string' };
      case 'USER':
      case 'SESSION_USER':
      case 'SYSTEM_USER':
        return { value: `${session.user}@${host}`, type: 'string' };
      case 'CURRENT_USER':
        return { value: `${session.user}@%`, type: 'string' };
      case 'CONNECTION_ID':
        return { value: String(session.connectionId), type: 'bigint' };
      case 'VERSION':
        return { value: lookupVar(state, 'version', 'session')!.value, type: 'string' };
      case 'CURRENT_CATALOG':
        return { value: env.currentCatalog(session), type: 'string' };
      case 'LAST_INSERT_ID':
      case 'ROW_COUNT':
      case 'FOUND_ROWS':
        return { value: '0', type: 'bigint' };
      default: {
        const d = new Date();
        const utc = f === 'UTC_TIMESTAMP';
        const get = (local: () => number, u: () => number): number => (utc ? u() : local());
        const text =
          `${get(() => d.getFullYear(), () => d.getUTCFullYear())}-${pad2(get(() => d.getMonth(), () => d.getUTCMonth()) + 1)}-${pad2(get(() => d.getDate(), () => d.getUTCDate()))} ` +
          `${pad2(get(() => d.getHours(), () => d.getUTCHours()))}:${pad2(get(() => d.getMinutes(), () => d.getUTCMinutes()))}:${pad2(get(() => d.getSeconds(), () => d.getUTCSeconds()))}`;
        return { value: text, type: 'datetime' };
      }
    }
  }
  throw c.lx.error(t.start, 'a system variable, a session function or a literal');
}

// ---------------------------------------------------------------------------------------------
// SET

function setValue(c: Cursor, state: StandaloneSessionState): string | null {
  const t = c.next();
  if (t.kind === 'string') return t.value;
  if (t.kind === 'number') return t.text;
  if (t.kind === 'punct' && t.value === '-') {
    const n = c.next();
    if (n.kind !== 'number') throw c.lx.error(n.start, 'a number');
    return '-' + n.text;
  }
  if (isKeyword(t, 'NULL')) return null;
  if (isKeyword(t, 'TRUE') || isKeyword(t, 'ON')) return t.kind === 'ident' && t.value.toUpperCase() === 'TRUE' ? '1' : 'ON';
  if (isKeyword(t, 'FALSE')) return '0';
  if (t.kind === 'punct' && t.value === '@@') {
    let name = c.expectIdent('a variable name');
    let scope: 'session' | 'global' = 'session';
    if (c.punct('.')) {
      if (name.toLowerCase() === 'global') scope = 'global';
      name = c.expectIdent('a variable name');
    }
    return lookupVar(state, name, scope)?.value ?? null;
  }
  if (t.kind === 'ident') {
    // Bare words: ON, OFF, DEFAULT, utf8mb4, SYSTEM, ... (also a.b such as a collation name with dots is not valid)
    return t.value;
  }
  throw c.lx.error(t.start, 'a value');
}

function assignVar(state: StandaloneSessionState, name: string, value: string | null): void {
  const key = name.toLowerCase();
  const def = DEFAULTS.get(key);
  if (value !== null && value.toUpperCase() === 'DEFAULT') {
    state.vars.delete(key);
    return;
  }
  let v = value;
  if (def?.type === 'bigint' && v !== null) {
    const u = v.toUpperCase();
    if (u === 'ON' || u === 'TRUE') v = '1';
    else if (u === 'OFF' || u === 'FALSE') v = '0';
  }
  state.vars.set(key, { value: v, type: def?.type ?? 'string' });
  if (key === 'transaction_isolation' || key === 'tx_isolation') {
    state.vars.set('transaction_isolation', { value: v, type: 'string' });
    state.vars.set('tx_isolation', { value: v, type: 'string' });
  }
}

function set(c: Cursor, state: StandaloneSessionState): LocalReply {
  // SET NAMES cs [COLLATE coll] | SET CHARACTER SET cs | SET CHARSET cs
  if (c.kw('NAMES')) {
    const cs = setValue(c, state);
    let coll: string | null = null;
    if (c.kw('COLLATE')) coll = setValue(c, state);
    c.end();
    for (const k of ['character_set_client', 'character_set_connection', 'character_set_results']) assignVar(state, k, cs);
    if (coll !== null) assignVar(state, 'collation_connection', coll);
    return OK;
  }
  if (c.isKw('CHARACTER') || c.isKw('CHARSET')) {
    if (c.kw('CHARACTER')) c.expectKw('SET');
    else c.next();
    const cs = setValue(c, state);
    c.end();
    assignVar(state, 'character_set_client', cs);
    assignVar(state, 'character_set_results', cs);
    return OK;
  }
  for (;;) {
    let scope: 'session' | 'global' = 'session';
    if (c.kw('GLOBAL')) scope = 'global';
    else if (c.kw('SESSION') || c.kw('LOCAL')) scope = 'session';
    if (c.kw('TRANSACTION')) {
      // SET [SESSION] TRANSACTION ISOLATION LEVEL ... | READ ONLY | READ WRITE
      const words: string[] = [];
      while (!c.atEnd() && !(c.peek().kind === 'punct' && (c.peek() as { value: string }).value === ',')) {
        const t = c.next();
        words.push(t.kind === 'ident' ? t.value.toUpperCase() : '');
      }
      const text = words.join(' ');
      const iso = /^ISOLATION LEVEL (READ UNCOMMITTED|READ COMMITTED|REPEATABLE READ|SERIALIZABLE)/.exec(text);
      if (iso && scope === 'session') assignVar(state, 'transaction_isolation', iso[1]!.replace(' ', '-'));
      if (/READ ONLY/.test(text) && !iso) assignVar(state, 'transaction_read_only', '1');
      if (/READ WRITE/.test(text)) assignVar(state, 'transaction_read_only', '0');
    } else {
      const t = c.next();
      let name: string;
      let user = false;
      if (t.kind === 'punct' && t.value === '@@') {
        name = c.expectIdent('a variable name');
        if (c.punct('.')) {
          scope = name.toLowerCase() === 'global' ? 'global' : 'session';
          name = c.expectIdent('a variable name');
        }
      } else if (t.kind === 'punct' && t.value === '@') {
        name = c.expectIdent('a user variable name');
        user = true;
      } else if (t.kind === 'ident') {
        name = t.value;
      } else {
        throw c.lx.error(t.start, 'a variable name');
      }
      if (!c.punct('=') && !c.punct(':=')) throw c.lx.error(c.peek().start, "'='");
      const value = setValue(c, state);
      if (user) state.userVars.set(name.toLowerCase(), value);
      else if (scope === 'session') assignVar(state, name, value);
      // SET GLOBAL is accepted and ignored: there is no global state to change without an FE.
    }
    if (!c.punct(',')) break;
  }
  c.end();
  return OK;
}

// ---------------------------------------------------------------------------------------------
// USE / SWITCH

async function useDatabase(
  session: SessionView,
  env: StandaloneEnv,
  state: StandaloneSessionState,
  catalogName: string | null,
  db: string,
): Promise<LocalReply> {
  const catName = catalogName ?? env.currentCatalog(session);
  const catalog = catName === null ? undefined : env.catalogs.get(catName);
  if (catalog === undefined) {
    return err(new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${catName ?? 'internal'}' (configured: ${env.catalogs.names().join(', ') || 'none'})`));
  }
  if (!(await catalog.databaseExists(db))) {
    return err(new ProcedureError('DATABASE_NOT_FOUND', `Unknown database '${db}' in catalog '${catalog.name}'`));
  }
  session.currentCatalog = catalog.name;
  session.currentDatabase = db;
  state.lastDbOfCatalog.set(catalog.name, db);
  return OK;
}

function switchCatalog(session: SessionView, env: StandaloneEnv, state: StandaloneSessionState, name: string): LocalReply {
  if (env.catalogs.get(name) === undefined) {
    return err(new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${name}' (configured: ${env.catalogs.names().join(', ') || 'none'})`));
  }
  session.currentCatalog = name;
  session.currentDatabase = state.lastDbOfCatalog.get(name) ?? null;
  return OK;
}

// ---------------------------------------------------------------------------------------------
// SHOW

/** Optional `LIKE 'p'` or `WHERE <column> (= | LIKE) 'x' [OR ...] | <column> IN ('a', ...)` over one column. */
function filterClause(c: Cursor, column: string): ((v: string) => boolean) | null {
  if (c.kw('LIKE')) {
    const re = likeToRegExp(c.expectString('a LIKE pattern'));
    return (v) => re.test(v);
  }
  if (c.kw('WHERE')) {
    const preds: ((v: string) => boolean)[] = [];
    do {
      const col = c.expectIdent(`the column ${column}`);
      if (col.toLowerCase() !== column.toLowerCase()) throw c.lx.error(c.peek().start, `the column ${column}`);
      if (c.punct('=')) {
        const x = c.expectString('a string');
        preds.push((v) => v.toLowerCase() === x.toLowerCase());
      } else if (c.kw('LIKE')) {
        const re = likeToRegExp(c.expectString('a LIKE pattern'));
        preds.push((v) => re.test(v));
      } else if (c.kw('IN')) {
        if (!c.punct('(')) throw c.lx.error(c.peek().start, "'('");
        const set = new Set<string>();
        do set.add(c.expectString('a string').toLowerCase());
        while (c.punct(','));
        if (!c.punct(')')) throw c.lx.error(c.peek().start, "')'");
        preds.push((v) => set.has(v.toLowerCase()));
      } else {
        throw c.lx.error(c.peek().start, "'=', LIKE or IN");
      }
    } while (c.kw('OR'));
    return (v) => preds.some((p) => p(v));
  }
  return null;
}

async function show(c: Cursor, sql: string, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): Promise<LocalReply> {
  let scope: 'session' | 'global' = 'session';
  if (c.kw('GLOBAL')) scope = 'global';
  else if (!c.kw('SESSION')) c.kw('LOCAL');
  const full = c.kw('FULL');
  const t = c.next();
  const word = t.kind === 'ident' && !t.quoted ? t.value.toUpperCase() : '';
  switch (word) {
    case 'VARIABLES': {
      const f = filterClause(c, 'Variable_name');
      c.end();
      const rows = allVars(state, scope).filter(([k]) => f === null || f(k));
      return resultset([['Variable_name', 'string'], ['Value', 'string']], rows.map(([k, v]) => [k, v ?? '']));
    }
    case 'STATUS': {
      const f = filterClause(c, 'Variable_name');
      c.end();
      const status: [string, string][] = [['Threads_connected', '1'], ['Uptime', String(Math.floor(process.uptime()))]];
      return resultset([['Variable_name', 'string'], ['Value', 'string']], status.filter(([k]) => f === null || f(k)));
    }
    case 'DATABASES':
    case 'SCHEMAS': {
      let catName = env.currentCatalog(session);
      if (c.kw('FROM') || c.kw('IN')) catName = c.expectIdent('a catalog name');
      const f = filterClause(c, 'Database');
      c.end();
      const catalog = catName === null ? undefined : env.catalogs.get(catName);
      if (catalog === undefined) throw new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${catName ?? 'internal'}'`);
      const dbs = (await catalog.listDatabases()).filter((d) => f === null || f(d));
      return resultset([['Database', 'string']], dbs.map((d) => [d]));
    }
    case 'TABLES': {
      let catName = env.currentCatalog(session);
      let db = session.currentDatabase;
      if (c.kw('FROM') || c.kw('IN')) {
        const first = c.expectIdent('a database name');
        if (c.punct('.')) {
          catName = first;
          db = c.expectIdent('a database name');
        } else db = first;
      }
      const f = filterClause(c, `Tables_in_${db ?? ''}`);
      c.end();
      if (db === null) throw new ProcedureError('DATABASE_NOT_FOUND', 'No database selected: USE <database> first, or SHOW TABLES FROM <database>');
      const catalog = catName === null ? undefined : env.catalogs.get(catName);
      if (catalog === undefined) throw new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${catName ?? 'internal'}'`);
      if (!(await catalog.databaseExists(db))) throw new ProcedureError('DATABASE_NOT_FOUND', `Unknown database '${db}' in catalog '${catalog.name}'`);
      const tables = (await catalog.listTables(db)).filter((x) => f === null || f(x));
      const col = `Tables_in_${db}`;
      return full
        ? resultset([[col, 'string'], ['Table_type', 'string']], tables.map((x) => [x, 'BASE TABLE']))
        : resultset([[col, 'string']], tables.map((x) => [x]));
    }
    case 'CATALOGS': {
      const f = filterClause(c, 'CatalogName');
      c.end();
      const current = env.currentCatalog(session);
      const rows: TextRow[] = env.catalogs
        .names()
        .filter((n) => f === null || f(n))
        .map((n, i) => [String(i + 1), n, 'paimon', n === current ? 'Yes' : '', null, null, `Paimon ${env.catalogs.get(n)!.type} catalog`]);
      return resultset(
        [['CatalogId', 'bigint'], ['CatalogName', 'string'], ['Type', 'string'], ['IsCurrent', 'string'], ['CreateTime', 'string'], ['LastUpdateTime', 'string'], ['Comment', 'string']],
        rows,
      );
    }
    case 'WARNINGS':
    case 'ERRORS': {
      if (c.kw('LIMIT')) c.next();
      c.end();
      const ws = state.lastWarnings.filter((w) => word === 'WARNINGS' || w.level === 'Error');
      return resultset([['Level', 'string'], ['Code', 'bigint'], ['Message', 'string']], ws.map((w) => [w.level, String(w.code), w.message]));
    }
    case 'COUNT': {
      // SHOW COUNT(*) WARNINGS | ERRORS
      if (!c.punct('(') || !c.punct('*') || !c.punct(')')) throw unsupported(sql, env);
      const which = c.expectIdent('WARNINGS or ERRORS').toUpperCase();
      c.end();
      const count = state.lastWarnings.filter((w) => which === 'WARNINGS' || w.level === 'Error').length;
      return resultset([[`@@session.${which === 'WARNINGS' ? 'warning' : 'error'}_count`, 'bigint']], [[String(count)]]);
    }
    case 'PROCEDURES': {
      const f = filterClause(c, 'Name');
      c.end();
      const rows = procedureListing(env.registry).filter((r) => f === null || f(r[0]!));
      return resultset(
        [['Name', 'string'], ['Aliases', 'string'], ['Signature', 'string'], ['Privilege', 'string'], ['Destructive', 'string'], ['Description', 'string']],
        rows,
      );
    }
    case 'CHARSET':
    case 'CHARACTER': {
      if (word === 'CHARACTER') c.expectKw('SET');
      const f = filterClause(c, 'Charset');
      c.end();
      const rows: TextRow[] = [['utf8mb4', 'UTF-8 Unicode', 'utf8mb4_0900_bin', '4']];
      return resultset([['Charset', 'string'], ['Description', 'string'], ['Default collation', 'string'], ['Maxlen', 'bigint']], rows.filter((r) => f === null || f(r[0]!)));
    }
    case 'COLLATION': {
      const f = filterClause(c, 'Collation');
      c.end();
      const rows: TextRow[] = [['utf8mb4_0900_bin', 'utf8mb4', '309', 'Yes', 'Yes', '1', 'NO PAD']];
      return resultset(
        [['Collation', 'string'], ['Charset', 'string'], ['Id', 'bigint'], ['Default', 'string'], ['Compiled', 'string'], ['Sortlen', 'bigint'], ['Pad_attribute', 'string']],
        rows.filter((r) => f === null || f(r[0]!)),
      );
    }
    case 'ENGINES': {
      c.end();
      return resultset(
        [['Engine', 'string'], ['Support', 'string'], ['Comment', 'string'], ['Transactions', 'string'], ['XA', 'string'], ['Savepoints', 'string']],
        [['Paimon', 'YES', 'Apache Paimon tables (procedures only; no FE configured)', 'NO', 'NO', 'NO']],
      );
    }
    case 'PLUGINS': {
      c.end();
      return resultset([['Name', 'string'], ['Status', 'string'], ['Type', 'string'], ['Library', 'string'], ['License', 'string']], []);
    }
    default:
      throw unsupported(sql, env);
  }
}

