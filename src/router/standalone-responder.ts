/**
 * Standalone mode (no FE configured): answers the statements clients send when they connect
 * (mysql/mariadb CLI, Connector/J, mysql2, DBeaver; mysql-protocol.md §9) and the few session
 * statements that make sense without an FE: SELECT of system variables and session functions,
 * SHOW VARIABLES / DATABASES / TABLES / CATALOGS / WARNINGS / PROCEDURES and the metadata
 * SHOWs tools probe, SET, USE, SWITCH, KILL, and transaction no-ops; and what browsing tools
 * read about the Paimon tables (browse/): information_schema, the Paimon system tables,
 * SHOW COLUMNS / KEYS / CREATE TABLE / TABLE STATUS and DESC. Anything else gets
 * STANDALONE_UNSUPPORTED, which says no FE is configured and what the proxy can do.
 */
import type { CatalogProvider } from '../../procedures/framework/catalog.js';
import { ProcedureError, toProcedureError } from '../../procedures/framework/errors.js';
import { PROCEDURE_DETAIL_COLUMNS, PROCEDURE_LISTING_COLUMNS, procedureDetail, procedureListing } from '../../procedures/framework/docs.js';
import type { ProcedureRegistry } from '../../procedures/framework/registry.js';
import type { ColumnSpec, ColumnType, LocalReply, SessionView, TextRow, Warning } from './route.js';
import { isShowDiagnostics, parseDescribe, parseKill, parseSet, parseShow, parseSwitch, parseUse, type SetStatement, type SetValue, type ShowFilter, type ShowStatement, type TableRef } from './session-statement.js';
import { answerSelect } from './browse/browse-select.js';
import { selectFromName } from './browse/select-query.js';
import { showColumns, showCreateTable, showIndex, showTableStatus } from './browse/show-table.js';
import { describeTable, loadTables } from './browse/table-metadata.js';
import { requireDatabase, resolveCatalog, resolveDatabase, type BrowseContext } from './browse/table-resolution.js';
import { ParseError, isKeyword, TokenCursor } from './sql-lexer.js';
import { defaultVariables, type VariableDef } from './standalone-variables.js';
import { likeToRegExp } from './browse/like-pattern.js';
import { unknownCatalog } from './browse/table-resolution.js';

export { likeToRegExp };
export { unknownCatalog };

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
  kill(target: bigint, mode: 'query' | 'connection', session: SessionView): LocalReply;
}

const DEFAULTS = defaultVariables();

/** The columns of MySQL's SHOW PROCEDURE STATUS / SHOW FUNCTION STATUS. */
const ROUTINE_STATUS_COLUMNS = ['Db', 'Name', 'Type', 'Definer', 'Modified', 'Created', 'Security_type', 'Comment', 'character_set_client', 'collation_connection', 'Database Collation'];
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
      `(SHOW PROCEDURES lists them), and answers SHOW CATALOGS / DATABASES / TABLES / COLUMNS / KEYS / CREATE TABLE / TABLE STATUS, ` +
      `SELECT from information_schema and from the system tables tbl$snapshots, $tags, $branches, $consumers, $schemas, $options, ` +
      `USE, SWITCH, SET and SHOW VARIABLES.`,
  );
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
    replies = await dispatch(sql, session, env, state);
  } catch (e) {
    if (e instanceof ParseError) {
      // A statement we cannot read is one we do not support; say so rather than blame its syntax.
      replies = [err(unsupported(sql, env))];
    } else {
      replies = [err(toProcedureError(e))];
    }
  }
  if (!isShowDiagnostics(sql)) rememberWarnings(state, replies);
  return replies;
}

/** Keep the warnings (or the error) of a statement's last reply for SHOW WARNINGS. */
export function rememberWarnings(state: StandaloneSessionState, replies: readonly LocalReply[]): void {
  const last = replies[replies.length - 1];
  state.lastWarnings =
    last?.kind === 'ok' ? (last.warnings ?? []) : last?.kind === 'error' ? [{ level: 'Error', code: last.errno, message: last.message }] : [];
}

/** The statement parsed by `parse`, or STANDALONE_UNSUPPORTED when it does not parse. */
function parsed<T>(parse: (sql: string) => T | null, sql: string, env: StandaloneEnv): T {
  const r = parse(sql);
  if (r === null) throw unsupported(sql, env);
  return r;
}

async function dispatch(sql: string, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): Promise<LocalReply[]> {
  const c = new TokenCursor(sql);
  const t = c.peek();
  if (t.kind !== 'ident' || t.quoted) throw unsupported(sql, env);
  switch (t.value.toUpperCase()) {
    case 'SELECT':
      // A SELECT that reads a table (information_schema, a system table); without FROM, session values.
      if (selectFromName(sql) !== null) return [await answerSelect(sql, browseContext(session, env))];
      c.next();
      return [select(c, session, env, state)];
    case 'DESC':
    case 'DESCRIBE': {
      const { meta } = await described(parsed(parseDescribe, sql, env), session, env);
      return [showColumns(meta, false, null)];
    }
    case 'SHOW':
      return [await show(parsed(parseShow, sql, env), sql, session, env, state)];
    case 'SET':
      return [set(parsed(parseSet, sql, env), state)];
    case 'USE': {
      const use = parsed(parseUse, sql, env);
      return [await useDatabase(session, env, state, use.catalog, use.db)];
    }
    case 'SWITCH':
      return [switchCatalog(session, env, state, parsed(parseSwitch, sql, env))];
    case 'KILL': {
      const kill = parsed(parseKill, sql, env);
      return [env.kill(kill.target, kill.mode, session)];
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

function browseContext(session: SessionView, env: StandaloneEnv): BrowseContext {
  return { catalogs: env.catalogs, currentCatalog: env.currentCatalog(session), currentDatabase: session.currentDatabase };
}

async function described(ref: TableRef, session: SessionView, env: StandaloneEnv): ReturnType<typeof describeTable> {
  const ctx = browseContext(session, env);
  const catalog = resolveCatalog(ctx, ref.catalog);
  const db = resolveDatabase(ctx, catalog, ref.db);
  await requireDatabase(catalog, db);
  return describeTable(catalog, db, ref.table);
}

// ---------------------------------------------------------------------------------------------
// SELECT <items> [FROM DUAL] [LIMIT n [, m] | LIMIT n OFFSET m]

function select(c: TokenCursor, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): LocalReply {
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

function selectExpr(c: TokenCursor, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): { value: string | null; type: ColumnType } {
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

/** A SET value as standalone mode stores it (a system variable's value is read now). */
function valueOf(v: SetValue, state: StandaloneSessionState): string | null {
  switch (v.kind) {
    case 'string':
      return v.value;
    case 'number':
    case 'word':
      return v.text;
    case 'null':
      return null;
    case 'system':
      return lookupVar(state, v.name, v.scope)?.value ?? null;
    case 'concat': {
      // CONCAT is NULL when any argument is, as in MySQL.
      const parts = v.parts.map((p) => valueOf(p, state));
      return parts.some((p) => p === null) ? null : parts.join('');
    }
  }
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

function set(stmt: SetStatement, state: StandaloneSessionState): LocalReply {
  if (stmt.kind === 'names') {
    const cs = valueOf(stmt.charset, state);
    const coll = stmt.collation === null ? null : valueOf(stmt.collation, state);
    for (const k of ['character_set_client', 'character_set_connection', 'character_set_results']) assignVar(state, k, cs);
    if (coll !== null) assignVar(state, 'collation_connection', coll);
    return OK;
  }
  if (stmt.kind === 'charset') {
    const cs = valueOf(stmt.charset, state);
    assignVar(state, 'character_set_client', cs);
    assignVar(state, 'character_set_results', cs);
    return OK;
  }
  for (const item of stmt.items) {
    if (item.kind === 'transaction') {
      const iso = /^ISOLATION LEVEL (READ UNCOMMITTED|READ COMMITTED|REPEATABLE READ|SERIALIZABLE)/.exec(item.words);
      if (iso && item.scope === 'session') assignVar(state, 'transaction_isolation', iso[1]!.replace(' ', '-'));
      if (/READ ONLY/.test(item.words) && !iso) assignVar(state, 'transaction_read_only', '1');
      if (/READ WRITE/.test(item.words)) assignVar(state, 'transaction_read_only', '0');
      continue;
    }
    const value = valueOf(item.value, state);
    if (item.user) state.userVars.set(item.name.toLowerCase(), value);
    else if (item.scope === 'session') assignVar(state, item.name, value);
    // SET GLOBAL is accepted and ignored: there is no global state to change without an FE.
  }
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
    return err(unknownCatalog(catName, env.catalogs));
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
  if (env.catalogs.get(name) === undefined) return err(unknownCatalog(name, env.catalogs));
  session.currentCatalog = name;
  session.currentDatabase = state.lastDbOfCatalog.get(name) ?? null;
  return OK;
}

// ---------------------------------------------------------------------------------------------
// SHOW

/**
 * A SHOW filter over one column as a predicate, or null for none. A WHERE on another column
 * is not supported (the statement is answered with STANDALONE_UNSUPPORTED).
 */
function filterOf(filter: ShowFilter | null, column: string, sql: string, env: StandaloneEnv): ((v: string) => boolean) | null {
  if (filter === null) return null;
  if (filter.kind === 'like') {
    const re = likeToRegExp(filter.pattern);
    return (v) => re.test(v);
  }
  const preds = filter.predicates.map((p): ((v: string) => boolean) => {
    if (p.column.toLowerCase() !== column.toLowerCase()) throw unsupported(sql, env);
    if (p.op === 'equals') return (v) => v.toLowerCase() === p.value.toLowerCase();
    if (p.op === 'like') {
      const re = likeToRegExp(p.pattern);
      return (v) => re.test(v);
    }
    const set = new Set(p.values.map((x) => x.toLowerCase()));
    return (v) => set.has(v.toLowerCase());
  });
  return (v) => preds.some((p) => p(v));
}

async function show(stmt: ShowStatement, sql: string, session: SessionView, env: StandaloneEnv, state: StandaloneSessionState): Promise<LocalReply> {
  switch (stmt.what) {
    case 'VARIABLES': {
      const f = filterOf(stmt.filter, 'Variable_name', sql, env);
      const rows = allVars(state, stmt.scope).filter(([k]) => f === null || f(k));
      return resultset([['Variable_name', 'string'], ['Value', 'string']], rows.map(([k, v]) => [k, v ?? '']));
    }
    case 'STATUS': {
      const f = filterOf(stmt.filter, 'Variable_name', sql, env);
      const status: [string, string][] = [['Threads_connected', '1'], ['Uptime', String(Math.floor(process.uptime()))]];
      return resultset([['Variable_name', 'string'], ['Value', 'string']], status.filter(([k]) => f === null || f(k)));
    }
    case 'DATABASES': {
      const catName = stmt.from ?? env.currentCatalog(session);
      const f = filterOf(stmt.filter, 'Database', sql, env);
      const catalog = catName === null ? undefined : env.catalogs.get(catName);
      if (catalog === undefined) throw new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${catName ?? 'internal'}'`);
      const dbs = (await catalog.listDatabases()).filter((d) => f === null || f(d));
      return resultset([['Database', 'string']], dbs.map((d) => [d]));
    }
    case 'TABLES': {
      const catName = stmt.from?.catalog ?? env.currentCatalog(session);
      const db = stmt.from ? stmt.from.db : session.currentDatabase;
      const f = filterOf(stmt.filter, `Tables_in_${db ?? ''}`, sql, env);
      if (db === null) throw new ProcedureError('DATABASE_NOT_FOUND', 'No database selected: USE <database> first, or SHOW TABLES FROM <database>');
      const catalog = catName === null ? undefined : env.catalogs.get(catName);
      if (catalog === undefined) throw new ProcedureError('CATALOG_NOT_FOUND', `Unknown catalog '${catName ?? 'internal'}'`);
      if (!(await catalog.databaseExists(db))) throw new ProcedureError('DATABASE_NOT_FOUND', `Unknown database '${db}' in catalog '${catalog.name}'`);
      const tables = (await catalog.listTables(db)).filter((x) => f === null || f(x));
      const col = `Tables_in_${db}`;
      return stmt.full
        ? resultset([[col, 'string'], ['Table_type', 'string']], tables.map((x) => [x, 'BASE TABLE']))
        : resultset([[col, 'string']], tables.map((x) => [x]));
    }
    case 'CATALOGS': {
      const f = filterOf(stmt.filter, 'CatalogName', sql, env);
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
      const ws = state.lastWarnings.filter((w) => stmt.what === 'WARNINGS' || w.level === 'Error');
      return resultset([['Level', 'string'], ['Code', 'bigint'], ['Message', 'string']], ws.map((w) => [w.level, String(w.code), w.message]));
    }
    case 'COUNT': {
      const which = stmt.of;
      const count = state.lastWarnings.filter((w) => which === 'WARNINGS' || w.level === 'Error').length;
      return resultset([[`@@session.${which === 'WARNINGS' ? 'warning' : 'error'}_count`, 'bigint']], [[String(count)]]);
    }
    case 'PROCEDURES': {
      const f = filterOf(stmt.filter, 'Name', sql, env);
      const rows = procedureListing(env.registry).filter((r) => f === null || f(r[0]!));
      return resultset(PROCEDURE_LISTING_COLUMNS.map(([name, type]): [string, ColumnType] => [name, type]), rows);
    }
    case 'ROUTINE STATUS':
      // The procedures here are not stored routines of a database: MySQL's listing is empty
      // (Connector/J only uses it to look up parameter metadata before a {call}).
      return resultset(ROUTINE_STATUS_COLUMNS.map((n): [string, ColumnType] => [n, 'string']), []);
    case 'PROCEDURE':
      return resultset(PROCEDURE_DETAIL_COLUMNS.map(([name, type]): [string, ColumnType] => [name, type]), procedureDetail(env.registry, stmt.name));
    case 'CHARSET': {
      const f = filterOf(stmt.filter, 'Charset', sql, env);
      const rows: TextRow[] = [['utf8mb4', 'UTF-8 Unicode', 'utf8mb4_0900_bin', '4']];
      return resultset([['Charset', 'string'], ['Description', 'string'], ['Default collation', 'string'], ['Maxlen', 'bigint']], rows.filter((r) => f === null || f(r[0]!)));
    }
    case 'COLLATION': {
      const f = filterOf(stmt.filter, 'Collation', sql, env);
      const rows: TextRow[] = [['utf8mb4_0900_bin', 'utf8mb4', '309', 'Yes', 'Yes', '1', 'NO PAD']];
      return resultset(
        [['Collation', 'string'], ['Charset', 'string'], ['Id', 'bigint'], ['Default', 'string'], ['Compiled', 'string'], ['Sortlen', 'bigint'], ['Pad_attribute', 'string']],
        rows.filter((r) => f === null || f(r[0]!)),
      );
    }
    case 'ENGINES':
      return resultset(
        [['Engine', 'string'], ['Support', 'string'], ['Comment', 'string'], ['Transactions', 'string'], ['XA', 'string'], ['Savepoints', 'string']],
        [['Paimon', 'YES', 'Apache Paimon tables (procedures only; no FE configured)', 'NO', 'NO', 'NO']],
      );
    case 'PLUGINS':
      return resultset([['Name', 'string'], ['Status', 'string'], ['Type', 'string'], ['Library', 'string'], ['License', 'string']], []);
    case 'COLUMNS': {
      const { meta } = await described(stmt.table, session, env);
      return showColumns(meta, stmt.full, filterOf(stmt.filter, 'Field', sql, env));
    }
    case 'INDEX': {
      const { meta } = await described(stmt.table, session, env);
      return showIndex(meta, filterOf(stmt.filter, 'Key_name', sql, env));
    }
    case 'CREATE TABLE': {
      const { meta, location } = await described(stmt.table, session, env);
      return showCreateTable(meta, location);
    }
    case 'TABLE STATUS': {
      const ctx = browseContext(session, env);
      const catalog = resolveCatalog(ctx, stmt.from?.catalog ?? null);
      const db = resolveDatabase(ctx, catalog, stmt.from?.db ?? null);
      await requireDatabase(catalog, db);
      const f = filterOf(stmt.filter, 'Name', sql, env);
      return showTableStatus(await loadTables(catalog, { databases: [db], snapshots: true }), f);
    }
  }
}
