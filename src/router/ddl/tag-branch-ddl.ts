/**
 * Reader of the tag and branch clauses of ALTER TABLE that Doris accepts for Iceberg tables
 * (apache/doris DorisParser.g4: createOrReplaceTagClause, createOrReplaceBranchClause,
 * dropTagClause, dropBranchClause, with tagOptions / branchOptions):
 *
 *   ALTER TABLE name CREATE TAG [IF NOT EXISTS] tag [AS OF VERSION n] [RETAIN n unit]
 *   ALTER TABLE name [CREATE OR] REPLACE TAG tag [AS OF VERSION n] [RETAIN n unit]
 *   ALTER TABLE name CREATE BRANCH [IF NOT EXISTS] b [AS OF VERSION n] [RETAIN n unit] [retention]
 *   ALTER TABLE name [CREATE OR] REPLACE BRANCH b [AS OF VERSION n] [RETAIN n unit] [retention]
 *   ALTER TABLE name DROP TAG [IF EXISTS] tag
 *   ALTER TABLE name DROP BRANCH [IF EXISTS] b
 *   name      := ident [ '.' ident [ '.' ident ] ]        -- [catalog.][db.]table
 *   unit      := DAYS | HOURS | MINUTES
 *   retention := WITH SNAPSHOT RETENTION ( n SNAPSHOTS [ n unit ] | n unit )
 *
 * As for CALL, reading is split so that statements that are not ours never fail here: up to
 * the clause keyword (`... TAG` / `... BRANCH`) a statement that does not fit is null (the
 * router forwards it unchanged); after it, what does not fit is an error the proxy answers,
 * but only once the router has decided that the table is in one of its catalogs.
 */
import { ProcedureError } from '../../../procedures/framework/errors.js';
import { ParseError, TokenCursor, isKeyword, type Token } from '../sql-lexer.js';

export type TimeUnit = 'DAYS' | 'HOURS' | 'MINUTES';

export interface TimeValue {
  value: bigint;
  unit: TimeUnit;
}

export type RefKind = 'tag' | 'branch';

/** CREATE, CREATE ... IF NOT EXISTS, REPLACE, CREATE OR REPLACE. */
export type CreateMode = 'create' | 'create_if_not_exists' | 'replace' | 'create_or_replace';

export type TagBranchClause =
  | {
      action: 'create';
      ref: RefKind;
      mode: CreateMode;
      name: string;
      /** AS OF VERSION: a snapshot id. */
      asOfVersion: bigint | null;
      /** RETAIN n unit. */
      retain: TimeValue | null;
      /** WITH SNAPSHOT RETENTION (branches only). */
      snapshotRetention: { minSnapshots: bigint | null; maxAge: TimeValue | null } | null;
    }
  | { action: 'drop'; ref: RefKind; ifExists: boolean; name: string };

export interface TagBranchDdl {
  /** The table name as written: 1 to 3 parts, back-quotes removed, case kept. */
  table: string[];
  /** What the clause does, known as soon as the statement is ours (also when the rest does not read). */
  action: 'create' | 'drop';
  ref: RefKind;
  /** The clause, or the error to answer when the statement is ours but does not read. */
  clause: TagBranchClause | ProcedureError;
}

/** Thrown by the clause reader; turned into the statement's ProcedureError. */
class ClauseError extends Error {
  constructor(readonly error: ProcedureError) {
    super(error.message);
  }
}

/**
 * Read an ALTER TABLE tag/branch statement. Null when the statement is not one (it then
 * goes upstream untouched); never throws.
 */
export function parseTagBranchDdl(sql: string): TagBranchDdl | null {
  const c = new TokenCursor(sql);
  let table: string[];
  let head: { action: 'create' | 'drop'; ref: RefKind; mode: CreateMode };
  try {
    if (!c.kw('ALTER') || !c.kw('TABLE')) return null;
    table = readName(c);
    if (table.length === 0) return null;
    const h = readHead(c);
    if (h === null) return null;
    head = h;
  } catch (e) {
    if (e instanceof ParseError) return null;
    throw e;
  }
  try {
    return { table, action: head.action, ref: head.ref, clause: readClause(c, head) };
  } catch (e) {
    if (e instanceof ClauseError) return { table, action: head.action, ref: head.ref, clause: e.error };
    if (e instanceof ParseError) return { table, action: head.action, ref: head.ref, clause: syntaxError(e) };
    throw e;
  }
}

function readName(c: TokenCursor): string[] {
  const parts: string[] = [];
  for (;;) {
    const t = c.next();
    if (t.kind !== 'ident') return [];
    parts.push(t.value);
    if (!c.punct('.')) return parts;
    if (parts.length === 3) return [];
  }
}

/** The clause keywords up to TAG / BRANCH; null when they are anything else. */
function readHead(c: TokenCursor): { action: 'create' | 'drop'; ref: RefKind; mode: CreateMode } | null {
  let action: 'create' | 'drop';
  let mode: CreateMode = 'create';
  if (c.kw('DROP')) {
    action = 'drop';
  } else if (c.kw('CREATE')) {
    action = 'create';
    if (c.kw('OR')) {
      if (!c.kw('REPLACE')) return null;
      mode = 'create_or_replace';
    }
  } else if (c.kw('REPLACE')) {
    action = 'create';
    mode = 'replace';
  } else {
    return null;
  }
  const ref: RefKind | null = c.kw('TAG') ? 'tag' : c.kw('BRANCH') ? 'branch' : null;
  return ref === null ? null : { action, ref, mode };
}

function readClause(c: TokenCursor, head: { action: 'create' | 'drop'; ref: RefKind; mode: CreateMode }): TagBranchClause {
  const { ref } = head;
  if (head.action === 'drop') {
    const ifExists = c.kw('IF') ? (c.expectKw('EXISTS'), true) : false;
    const name = refName(c, ref);
    finish(c);
    return { action: 'drop', ref, ifExists, name };
  }
  let mode = head.mode;
  // IF NOT EXISTS belongs to plain CREATE only (the grammar has no REPLACE ... IF NOT EXISTS).
  if (mode === 'create' && c.kw('IF')) {
    c.expectKw('NOT');
    c.expectKw('EXISTS');
    mode = 'create_if_not_exists';
  }
  const name = refName(c, ref);
  let asOfVersion: bigint | null = null;
  if (c.kw('AS')) {
    c.expectKw('OF');
    c.expectKw('VERSION');
    asOfVersion = integer(c, 'a snapshot id after AS OF VERSION');
  }
  const retain = c.kw('RETAIN') ? timeValue(c) : null;
  let snapshotRetention: { minSnapshots: bigint | null; maxAge: TimeValue | null } | null = null;
  if (ref === 'branch' && c.kw('WITH')) {
    c.expectKw('SNAPSHOT');
    c.expectKw('RETENTION');
    const n = integer(c, 'a number of snapshots or a time value after WITH SNAPSHOT RETENTION');
    if (c.kw('SNAPSHOTS')) {
      const maxAge = isInteger(c.peek()) ? timeValue(c) : null;
      snapshotRetention = { minSnapshots: n, maxAge };
    } else {
      snapshotRetention = { minSnapshots: null, maxAge: { value: n, unit: unit(c) } };
    }
  }
  finish(c);
  return { action: 'create', ref, mode, name, asOfVersion, retain, snapshotRetention };
}

function refName(c: TokenCursor, ref: RefKind): string {
  return c.expectIdent(`a ${ref} name`);
}

function isInteger(t: Token): t is Extract<Token, { kind: 'number' }> {
  return t.kind === 'number' && t.integer && /^\d+$/.test(t.text);
}

function integer(c: TokenCursor, what: string): bigint {
  const t = c.next();
  if (!isInteger(t)) throw c.lx.error(t.start, what);
  return BigInt(t.text);
}

function unit(c: TokenCursor): TimeUnit {
  const t = c.next();
  for (const u of ['DAYS', 'HOURS', 'MINUTES'] as const) if (isKeyword(t, u)) return u;
  throw c.lx.error(t.start, 'DAYS, HOURS or MINUTES');
}

function timeValue(c: TokenCursor): TimeValue {
  const value = integer(c, 'a whole number followed by DAYS, HOURS or MINUTES');
  return { value, unit: unit(c) };
}

/** The end of the statement: another ALTER clause or another statement is refused by name. */
function finish(c: TokenCursor): void {
  if (c.punct(',')) {
    throw new ClauseError(new ProcedureError('NOT_SUPPORTED', 'An ALTER TABLE with a tag or branch clause takes that one clause only: send each clause as its own ALTER TABLE statement'));
  }
  if (c.punct(';') && c.peek().kind !== 'eof') {
    throw new ClauseError(new ProcedureError('MULTI_STATEMENT', 'An ALTER TABLE tag or branch statement on a Paimon catalog cannot be sent together with other statements: send it alone'));
  }
  c.end();
}

/** The lexer's ParseError speaks of CALL syntax; this statement is an ALTER TABLE. */
function syntaxError(e: ParseError): ProcedureError {
  return new ProcedureError('PARSE_ERROR', e.message.replace('in your CALL syntax', 'in your ALTER TABLE syntax'));
}
