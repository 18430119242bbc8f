/**
 * Table identifiers as Paimon spells them (`Identifier`): `db.tbl`, a branch as
 * `db.tbl$branch_<name>`, a system table as `db.tbl$snapshots` (or `db.tbl$branch_x$snapshots`).
 * Procedures operate on data tables; system tables are recognised so callers can refuse them.
 */
import { DEFAULT_MAIN_BRANCH } from '../table/branch.js';
import { PaimonError } from '../errors.js';

export const SYSTEM_TABLE_SPLITTER = '$';
export const SYSTEM_BRANCH_PREFIX = 'branch_';
export const SYSTEM_DATABASE_NAME = 'sys';

export interface Identifier {
  database: string;
  /** The table name without any `$...` suffix. */
  table: string;
  /** Branch from `$branch_<name>`; undefined means main. */
  branch?: string;
  /** System table name (`snapshots`, `tags`, ...) when the object is one. */
  systemTable?: string;
}

/** Split an object name (`tbl`, `tbl$branch_b`, `tbl$snapshots`, `tbl$branch_b$files`) like `Identifier.splitObjectName`. */
export function parseObjectName(database: string, object: string): Identifier {
  const parts = object.split(SYSTEM_TABLE_SPLITTER);
  if (parts.some((p) => p === '')) throw new PaimonError('INVALID_ARGUMENT', `Invalid object name: ${object}`);
  if (parts.length === 1) return { database, table: object };
  if (parts.length === 2) {
    if (parts[1].startsWith(SYSTEM_BRANCH_PREFIX)) {
      const branch = parts[1].slice(SYSTEM_BRANCH_PREFIX.length);
      if (branch === '') throw new PaimonError('INVALID_ARGUMENT', `Invalid object name: ${object}`);
      return branch === DEFAULT_MAIN_BRANCH ? { database, table: parts[0] } : { database, table: parts[0], branch };
    }
    return { database, table: parts[0], systemTable: parts[1] };
  }
  if (parts.length === 3) {
    if (!parts[1].startsWith(SYSTEM_BRANCH_PREFIX)) {
      throw new PaimonError('INVALID_ARGUMENT', `System table can only contain one '$' separator, but this is: ${object}`);
    }
    const branch = parts[1].slice(SYSTEM_BRANCH_PREFIX.length);
    return { database, table: parts[0], ...(branch === DEFAULT_MAIN_BRANCH ? {} : { branch }), systemTable: parts[2] };
  }
  throw new PaimonError('INVALID_ARGUMENT', `Invalid object name: ${object}`);
}

/** `Identifier.fromString`: `db.object` split at the first dot. */
export function parseIdentifier(fullName: string): Identifier {
  const s = fullName.trim();
  if (s === '') throw new PaimonError('INVALID_ARGUMENT', 'table name cannot be null or empty');
  const dot = s.indexOf('.');
  if (dot <= 0 || dot === s.length - 1) {
    throw new PaimonError('INVALID_ARGUMENT', `Cannot get splits from '${fullName}' to get database and object (expected db.table)`);
  }
  return parseObjectName(s.slice(0, dot), s.slice(dot + 1));
}

export function isSystemTable(id: Identifier): boolean {
  return id.systemTable !== undefined || id.database === SYSTEM_DATABASE_NAME;
}

export function branchOf(id: Identifier): string {
  return id.branch ?? DEFAULT_MAIN_BRANCH;
}

/** `db.tbl`, `db.tbl$branch_b`, `db.tbl$snapshots` — the full name as Paimon prints it. */
export function identifierToString(id: Identifier): string {
  let s = `${id.database}.${id.table}`;
  if (id.branch !== undefined && id.branch !== DEFAULT_MAIN_BRANCH) s += `${SYSTEM_TABLE_SPLITTER}${SYSTEM_BRANCH_PREFIX}${id.branch}`;
  if (id.systemTable !== undefined) s += `${SYSTEM_TABLE_SPLITTER}${id.systemTable}`;
  return s;
}
