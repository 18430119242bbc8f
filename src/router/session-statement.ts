/**
 * The session statements the proxy reads itself, in both modes: `USE`, `SWITCH` (Doris),
 * `SET`, `KILL` and `SHOW`. One reader per statement, built on sql-lexer.ts, returning the
 * statement as data or null when it is not one the proxy understands (a syntax error
 * included). With an upstream the router takes what it mirrors from them (router.ts); alone,
 * the standalone responder answers them (standalone-responder.ts).
 *
 * Grammar as MySQL's and Doris's parsers accept it for the forms clients send (MySQL manual
 * "SET Syntax for Variable Assignment", "KILL Statement", "SHOW Statements"; Doris
 * `SWITCH catalog`, `USE catalog.db`).
 */
import { isKeyword, ParseError, TokenCursor, type Token } from './sql-lexer.js';

/** `USE db` or `USE catalog.db`. */
export interface UseStatement {
  catalog: string | null;
  db: string;
}

/** `KILL [QUERY | CONNECTION] <id>` with a numeric id (a quoted Doris query id is not one). */
export interface KillStatement {
  /** The id exactly as written (KILL takes any size; only ids up to 2^32 - 1 can be connections). */
  target: bigint;
  mode: 'query' | 'connection';
}

export type VariableScope = 'session' | 'global';

/** The right-hand side of one SET assignment, as written. */
export type SetValue =
  | { kind: 'string'; value: string }
  /** A number literal's text, with its sign. */
  | { kind: 'number'; text: string }
  | { kind: 'null' }
  /** A bare word (ON, OFF, DEFAULT, utf8mb4, ...): TRUE and FALSE read as '1' and '0', ON as 'ON'. */
  | { kind: 'word'; text: string }
  /** `@@[scope.]name`: the value of a system variable. */
  | { kind: 'system'; name: string; scope: VariableScope }
  /** `CONCAT(v, ...)`: drivers extend a variable so (MariaDB Connector/J: session_track_system_variables). */
  | { kind: 'concat'; parts: SetValue[] };

export type SetItem =
  /** `[scope] TRANSACTION ISOLATION LEVEL ... | READ ONLY | READ WRITE`: the words, upper-cased. */
  | { kind: 'transaction'; scope: VariableScope; words: string }
  | {
      kind: 'variable';
      /** `@name` (a user variable) or a system variable (`@@name`, `@@scope.name`, `name`). */
      user: boolean;
      name: string;
      scope: VariableScope;
      /** GLOBAL, SESSION or LOCAL was written before the variable. */
      scopeKeyword: boolean;
      value: SetValue;
    };

export type SetStatement =
  | { kind: 'names'; charset: SetValue; collation: SetValue | null }
  /** `SET CHARACTER SET cs` / `SET CHARSET cs`. */
  | { kind: 'charset'; charset: SetValue }
  | { kind: 'assignments'; items: SetItem[] };

/** One disjunct of a SHOW filter's WHERE, on the column it names. */
export type ShowPredicate =
  | { column: string; op: 'equals'; value: string }
  | { column: string; op: 'like'; pattern: string }
  | { column: string; op: 'in'; values: string[] };

/** `LIKE 'p'`, or `WHERE <column> (= | LIKE) 'x' | <column> IN ('a', ...) [OR ...]`. */
export type ShowFilter = { kind: 'like'; pattern: string } | { kind: 'where'; predicates: ShowPredicate[] };

/** A table as a statement names it: `t`, `db.t` or `catalog.db.t` (a `FROM db` after it fills db). */
export interface TableRef {
  catalog: string | null;
  db: string | null;
  table: string;
}

export type ShowStatement = { scope: VariableScope; full: boolean } & (
  | { what: 'VARIABLES' | 'STATUS' | 'CATALOGS' | 'PROCEDURES' | 'CHARSET' | 'COLLATION'; filter: ShowFilter | null }
  | { what: 'DATABASES'; from: string | null; filter: ShowFilter | null }
  | { what: 'TABLES'; from: UseStatement | null; filter: ShowFilter | null }
  /** `SHOW [FULL] COLUMNS | FIELDS FROM t [FROM db]`; `SHOW INDEX | INDEXES | KEYS FROM t [FROM db]`. */
  | { what: 'COLUMNS' | 'INDEX'; table: TableRef; filter: ShowFilter | null }
  | { what: 'CREATE TABLE'; table: TableRef }
  /** `SHOW PROCEDURE <name>` (also `sys.<name>`, `<catalog>.sys.<name>`): one procedure in full. */
  | { what: 'PROCEDURE'; name: string }
  /** MySQL's `SHOW PROCEDURE STATUS` / `SHOW FUNCTION STATUS` (Connector/J sends it before a `{call}`). */
  | { what: 'ROUTINE STATUS'; filter: ShowFilter | null }
  | { what: 'TABLE STATUS'; from: UseStatement | null; filter: ShowFilter | null }
  | { what: 'WARNINGS' | 'ERRORS' | 'ENGINES' | 'PLUGINS' }
  /** `SHOW COUNT(*) WARNINGS | ERRORS`: the word as written, upper-cased. */
  | { what: 'COUNT'; of: string }
);

/** Runs one reader; a statement that does not lex or parse is null. */
function read<T>(sql: string, keyword: string, body: (c: TokenCursor) => T | null): T | null {
  try {
    const c = new TokenCursor(sql);
    if (!isKeyword(c.next(), keyword)) return null;
    return body(c);
  } catch (e) {
    if (e instanceof ParseError) return null;
    throw e;
  }
}

export function parseUse(sql: string): UseStatement | null {
  return read(sql, 'USE', (c) => {
    const first = c.expectIdent('a database name');
    let use: UseStatement = { catalog: null, db: first };
    if (c.punct('.')) use = { catalog: first, db: c.expectIdent('a database name') };
    c.end();
    return use;
  });
}

/** `SWITCH catalog`: the catalog. */
export function parseSwitch(sql: string): string | null {
  return read(sql, 'SWITCH', (c) => {
    const catalog = c.expectIdent('a catalog name');
    c.end();
    return catalog;
  });
}

/** The id as written (any size: the caller decides which ids can be connections). */
export function parseKill(sql: string): KillStatement | null {
  return read(sql, 'KILL', (c) => {
    let mode: 'query' | 'connection' = 'connection';
    if (c.kw('QUERY')) mode = 'query';
    else c.kw('CONNECTION');
    const n = c.next();
    if (n.kind !== 'number' || !n.integer) return null;
    c.end();
    return { target: BigInt(n.text), mode };
  });
}

export function parseSet(sql: string): SetStatement | null {
  return read(sql, 'SET', (c) => {
    if (c.kw('NAMES')) {
      const charset = setValue(c);
      const collation = c.kw('COLLATE') ? setValue(c) : null;
      c.end();
      return { kind: 'names', charset, collation };
    }
    if (c.isKw('CHARACTER') || c.isKw('CHARSET')) {
      if (c.kw('CHARACTER')) c.expectKw('SET');
      else c.next();
      const charset = setValue(c);
      c.end();
      return { kind: 'charset', charset };
    }
    const items: SetItem[] = [];
    do {
      if (c.kw('NAMES')) items.push(...namesItems(c));
      else items.push(setItem(c));
    } while (c.punct(','));
    c.end();
    return { kind: 'assignments', items };
  });
}

function setItem(c: TokenCursor): SetItem {
  let scope: VariableScope = 'session';
  let scopeKeyword = true;
  if (c.kw('GLOBAL')) scope = 'global';
  else if (!c.kw('SESSION') && !c.kw('LOCAL')) scopeKeyword = false;
  if (c.kw('TRANSACTION')) {
    const words: string[] = [];
    while (!c.atEnd() && !isPunct(c.peek(), ',')) {
      const t = c.next();
      words.push(t.kind === 'ident' ? t.value.toUpperCase() : '');
    }
    return { kind: 'transaction', scope, words: words.join(' ') };
  }
  const t = c.next();
  let name: string;
  let user = false;
  if (isPunct(t, '@@')) {
    name = c.expectIdent('a variable name');
    if (c.punct('.')) {
      scope = name.toLowerCase() === 'global' ? 'global' : 'session';
      name = c.expectIdent('a variable name');
    }
  } else if (isPunct(t, '@')) {
    name = c.expectIdent('a user variable name');
    user = true;
  } else if (t.kind === 'ident') {
    name = t.value;
  } else {
    throw c.lx.error(t.start, 'a variable name');
  }
  if (!c.punct('=') && !c.punct(':=')) throw c.lx.error(c.peek().start, "'='");
  if (!user && name.toLowerCase().startsWith('session_track_')) {
    // Drivers extend these with expressions (MariaDB Connector/J: CONCAT('autocommit,...',
    // IF(LOCATE(...)...))). The proxy's own OK packets report no session state, so the value is
    // read past and stored as '' (nothing tracked) instead of being evaluated.
    skipExpression(c);
    return { kind: 'variable', user, name, scope, scopeKeyword, value: { kind: 'string', value: '' } };
  }
  return { kind: 'variable', user, name, scope, scopeKeyword, value: setValue(c) };
}

/**
 * `NAMES cs [COLLATE coll]` inside a list of assignments (MariaDB Connector/J sends
 * `SET ..., NAMES utf8mb4`): the variables SET NAMES sets, as separate assignments.
 */
function namesItems(c: TokenCursor): SetItem[] {
  const charset = setValue(c);
  const collation = c.kw('COLLATE') ? setValue(c) : null;
  const variable = (name: string, value: SetValue): SetItem => ({ kind: 'variable', user: false, name, scope: 'session', scopeKeyword: false, value });
  const items = ['character_set_client', 'character_set_connection', 'character_set_results'].map((n) => variable(n, charset));
  if (collation !== null) items.push(variable('collation_connection', collation));
  return items;
}

/** Reads past one expression: up to a comma outside parentheses, or the end. */
function skipExpression(c: TokenCursor): void {
  let depth = 0;
  for (;;) {
    const t = c.peek();
    if (t.kind === 'eof' || (depth === 0 && t.kind === 'punct' && (t.value === ',' || t.value === ';'))) return;
    c.next();
    if (t.kind === 'punct' && t.value === '(') depth++;
    else if (t.kind === 'punct' && t.value === ')') {
      if (depth === 0) throw c.lx.error(t.start, 'an expression');
      depth--;
    }
  }
}

function setValue(c: TokenCursor): SetValue {
  const t = c.next();
  if (t.kind === 'string') return { kind: 'string', value: t.value };
  if (t.kind === 'number') return { kind: 'number', text: t.text };
  if (isPunct(t, '-')) {
    const n = c.next();
    if (n.kind !== 'number') throw c.lx.error(n.start, 'a number');
    return { kind: 'number', text: '-' + n.text };
  }
  if (isKeyword(t, 'NULL')) return { kind: 'null' };
  if (isKeyword(t, 'TRUE')) return { kind: 'word', text: '1' };
  if (isKeyword(t, 'ON')) return { kind: 'word', text: 'ON' };
  if (isKeyword(t, 'FALSE')) return { kind: 'word', text: '0' };
  if (isPunct(t, '@@')) {
    let name = c.expectIdent('a variable name');
    let scope: VariableScope = 'session';
    if (c.punct('.')) {
      if (name.toLowerCase() === 'global') scope = 'global';
      name = c.expectIdent('a variable name');
    }
    return { kind: 'system', name, scope };
  }
  if (t.kind === 'ident' && !t.quoted && t.value.toUpperCase() === 'CONCAT' && c.punct('(')) {
    const parts: SetValue[] = [setValue(c)];
    while (c.punct(',')) parts.push(setValue(c));
    if (!c.punct(')')) throw c.lx.error(c.peek().start, "')'");
    return { kind: 'concat', parts };
  }
  if (t.kind === 'ident') return { kind: 'word', text: t.value };
  throw c.lx.error(t.start, 'a value');
}

/**
 * The literal a SET gives a user variable, as the FE stores it: a string, a number's text or
 * NULL. Undefined for anything else (a word, another variable), whose value only the FE knows.
 */
export function literalValue(v: SetValue): string | null | undefined {
  if (v.kind === 'string') return v.value;
  if (v.kind === 'number') return v.text;
  if (v.kind === 'null') return null;
  return undefined;
}

export function parseShow(sql: string): ShowStatement | null {
  return read(sql, 'SHOW', (c): ShowStatement | null => {
    let scope: VariableScope = 'session';
    if (c.kw('GLOBAL')) scope = 'global';
    else if (!c.kw('SESSION')) c.kw('LOCAL');
    const full = c.kw('FULL');
    const t = c.next();
    const word = t.kind === 'ident' && !t.quoted ? t.value.toUpperCase() : '';
    const head = { scope, full };
    switch (word) {
      case 'VARIABLES':
      case 'STATUS':
      case 'CATALOGS':
      case 'PROCEDURES':
      case 'COLLATION':
      case 'CHARSET':
      case 'CHARACTER': {
        if (word === 'CHARACTER') c.expectKw('SET');
        const filter = showFilter(c);
        c.end();
        return { ...head, what: word === 'CHARACTER' ? 'CHARSET' : word, filter };
      }
      case 'FUNCTION':
      case 'PROCEDURE': {
        const next = c.peek();
        const nextWord = next.kind === 'ident' && !next.quoted ? next.value.toUpperCase() : '';
        if (nextWord === 'STATUS') {
          // The listing is always empty here, so its LIKE / WHERE (Connector/J sends
          // `WHERE Db = ... AND Name LIKE ...`) is read past rather than evaluated.
          c.next();
          while (c.peek().kind !== 'eof') c.next();
          return { ...head, what: 'ROUTINE STATUS', filter: null };
        }
        // MySQL's SHOW PROCEDURE CODE (and any SHOW FUNCTION but STATUS) is not ours.
        if (word === 'FUNCTION' || nextWord === 'CODE') return null;
        let name = c.expectIdent('a procedure name');
        while (c.punct('.')) name = c.expectIdent('a procedure name');
        c.end();
        return { ...head, what: 'PROCEDURE', name };
      }
      case 'DATABASES':
      case 'SCHEMAS': {
        const from = c.kw('FROM') || c.kw('IN') ? c.expectIdent('a catalog name') : null;
        const filter = showFilter(c);
        c.end();
        return { ...head, what: 'DATABASES', from, filter };
      }
      case 'TABLES': {
        const from = databaseFrom(c);
        const filter = showFilter(c);
        c.end();
        return { ...head, what: 'TABLES', from, filter };
      }
      case 'COLUMNS':
      case 'FIELDS':
      case 'INDEX':
      case 'INDEXES':
      case 'KEYS': {
        if (!c.kw('FROM') && !c.kw('IN')) return null;
        let table = tableRef(c);
        const db = databaseFrom(c);
        if (db !== null) table = { catalog: db.catalog ?? table.catalog, db: db.db, table: table.table };
        const filter = showFilter(c);
        c.end();
        return { ...head, what: word === 'COLUMNS' || word === 'FIELDS' ? 'COLUMNS' : 'INDEX', table, filter };
      }
      case 'CREATE': {
        if (!c.kw('TABLE')) return null;
        const table = tableRef(c);
        c.end();
        return { ...head, what: 'CREATE TABLE', table };
      }
      case 'TABLE': {
        if (!c.kw('STATUS')) return null;
        const from = databaseFrom(c);
        const filter = showFilter(c);
        c.end();
        return { ...head, what: 'TABLE STATUS', from, filter };
      }
      case 'WARNINGS':
      case 'ERRORS':
        if (c.kw('LIMIT')) c.next();
        c.end();
        return { ...head, what: word };
      case 'COUNT': {
        if (!c.punct('(') || !c.punct('*') || !c.punct(')')) return null;
        const of = c.expectIdent('WARNINGS or ERRORS').toUpperCase();
        c.end();
        return { ...head, what: 'COUNT', of };
      }
      case 'ENGINES':
      case 'PLUGINS':
        c.end();
        return { ...head, what: word };
      default:
        return null;
    }
  });
}

/** `FROM | IN db` or `FROM | IN catalog.db`, or null when neither keyword comes next. */
function databaseFrom(c: TokenCursor): UseStatement | null {
  if (!c.kw('FROM') && !c.kw('IN')) return null;
  const first = c.expectIdent('a database name');
  return c.punct('.') ? { catalog: first, db: c.expectIdent('a database name') } : { catalog: null, db: first };
}

/** `t`, `db.t` or `catalog.db.t`. */
function tableRef(c: TokenCursor): TableRef {
  const parts = [c.expectIdent('a table name')];
  while (parts.length < 3 && c.punct('.')) parts.push(c.expectIdent('a table name'));
  const [a, b, t] = parts;
  if (parts.length === 3) return { catalog: a!, db: b!, table: t! };
  if (parts.length === 2) return { catalog: null, db: a!, table: b! };
  return { catalog: null, db: null, table: a! };
}

/** `DESC | DESCRIBE t` (MySQL's shorthand for SHOW COLUMNS FROM t). */
export function parseDescribe(sql: string): TableRef | null {
  const body = (c: TokenCursor): TableRef => {
    const table = tableRef(c);
    c.end();
    return table;
  };
  return read(sql, 'DESC', body) ?? read(sql, 'DESCRIBE', body);
}

function showFilter(c: TokenCursor): ShowFilter | null {
  if (c.kw('LIKE')) return { kind: 'like', pattern: c.expectString('a LIKE pattern') };
  if (!c.kw('WHERE')) return null;
  const predicates: ShowPredicate[] = [];
  do {
    const column = c.expectIdent('a column name');
    if (c.punct('=')) {
      predicates.push({ column, op: 'equals', value: c.expectString('a string') });
    } else if (c.kw('LIKE')) {
      predicates.push({ column, op: 'like', pattern: c.expectString('a LIKE pattern') });
    } else if (c.kw('IN')) {
      if (!c.punct('(')) throw c.lx.error(c.peek().start, "'('");
      const values: string[] = [];
      do values.push(c.expectString('a string'));
      while (c.punct(','));
      if (!c.punct(')')) throw c.lx.error(c.peek().start, "')'");
      predicates.push({ column, op: 'in', values });
    } else {
      throw c.lx.error(c.peek().start, "'=', LIKE or IN");
    }
  } while (c.kw('OR'));
  return { kind: 'where', predicates };
}

function isPunct(t: Token, p: string): boolean {
  return t.kind === 'punct' && t.value === p;
}

/**
 * `SHOW WARNINGS`, `SHOW ERRORS` and their `COUNT(*)` forms: they report on the statement
 * before them, so they leave its warnings in place (MySQL's diagnostics area).
 */
export function isShowDiagnostics(sql: string): boolean {
  return /^show\s+(count\s*\(\s*\*\s*\)\s+)?(warnings|errors)\b/i.test(stripLeadingComments(sql));
}

function stripLeadingComments(sql: string): string {
  try {
    const c = new TokenCursor(sql);
    c.lx.skipTrivia();
    return sql.slice(c.lx.pos);
  } catch {
    return sql;
  }
}
