/**
 * Resolving the `table` argument of a procedure to exactly one object. Accepted spellings
 * (Paimon's `Identifier` plus Spark's multi-part names): `tbl` (current database),
 * `db.tbl`, `cat.db.tbl` (only the called catalog), each part optionally back-quoted, and a
 * branch suffix `tbl$branch_<name>` as Paimon spells it. A missing database, table or branch
 * is an error naming it; nothing ever falls back to another object (no "main when the
 * branch is missing", no case folding). System tables (`tbl$snapshots`) are refused.
 */
import { ProcedureError } from './errors.js';
import { quote } from './quote.js';
import type { ProcedureCatalog } from './catalog.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';

/** Paimon's `BranchManager.DEFAULT_MAIN_BRANCH`. */
const MAIN_BRANCH = 'main';
const BRANCH_PREFIX = 'branch_';
const SYSTEM_TABLE_SPLITTER = '$';

export interface TableIdentifier {
  database: string;
  /** Table name without the branch suffix; '*' for a database wildcard when allowed. */
  table: string;
  /** Branch name, or null for the main branch (`$branch_main` is the main branch too). */
  branch: string | null;
}

export interface ParseIdentifierOptions {
  /** The catalog the procedure was called in; a three-part name must name it. */
  catalog: string;
  /** Session's current database, used for a one-part name; null makes a one-part name an error. */
  currentDatabase: string | null;
  /** Accept `db.*` (remove_orphan_files over a whole database). */
  allowWildcard?: boolean;
  /** Name of the argument, for messages. */
  argument?: string;
}

function invalid(argument: string, text: string, why: string): never {
  throw new ProcedureError('INVALID_ARGUMENT', `Invalid table identifier ${quote(text)} for argument ${argument}: ${why}`);
}

/** Split a dotted name into parts, honouring back-quotes (with `` `` `` as an escaped back-quote). */
function splitParts(text: string, argument: string): string[] {
  const parts: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    let part = '';
    if (text[i] === '`') {
      i++;
      for (;;) {
        if (i >= n) invalid(argument, text, 'unterminated back-quote');
        if (text[i] === '`') {
          if (text[i + 1] === '`') {
            part += '`';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        part += text[i];
        i++;
      }
      if (part === '') invalid(argument, text, 'empty quoted name');
    } else {
      const start = i;
      while (i < n && text[i] !== '.') {
        if (text[i] === '`') invalid(argument, text, 'a back-quote in the middle of a name');
        i++;
      }
      part = text.slice(start, i).trim();
      if (part === '') invalid(argument, text, 'empty name part');
    }
    parts.push(part);
    if (i >= n) break;
    if (text[i] !== '.') invalid(argument, text, `unexpected ${quote(text[i]!)} after a quoted name`);
    i++;
    if (i >= n) invalid(argument, text, 'it ends with a dot');
  }
  return parts;
}

export function parseTableIdentifier(text: string, opts: ParseIdentifierOptions): TableIdentifier {
  const argument = opts.argument ?? 'table';
  if (text.trim() === '') {
    throw new ProcedureError('INVALID_ARGUMENT', `Cannot handle an empty identifier for argument ${argument}`);
  }
  const parts = splitParts(text.trim(), argument);
  let database: string;
  let object: string;
  if (parts.length === 1) {
    if (opts.currentDatabase === null) {
      invalid(argument, text, 'no database given and the session has no current database; write db.table');
    }
    database = opts.currentDatabase;
    object = parts[0]!;
  } else if (parts.length === 2) {
    database = parts[0]!;
    object = parts[1]!;
  } else if (parts.length === 3) {
    if (parts[0] !== opts.catalog) {
      invalid(argument, text, `it names catalog ${quote(parts[0]!)} but the procedure was called in catalog '${opts.catalog}'`);
    }
    database = parts[1]!;
    object = parts[2]!;
  } else {
    invalid(argument, text, 'expected db.table (at most catalog.db.table)');
  }
  if (object === '*') {
    if (!opts.allowWildcard) invalid(argument, text, 'a wildcard is not accepted here');
    return { database, table: '*', branch: null };
  }
  const pieces = object.split(SYSTEM_TABLE_SPLITTER);
  const table = pieces[0]!;
  if (table === '') invalid(argument, text, 'empty table name');
  let branch: string | null = null;
  const rest = pieces.slice(1);
  if (rest.length > 0 && rest[0]!.startsWith(BRANCH_PREFIX)) {
    branch = rest.shift()!.slice(BRANCH_PREFIX.length);
    if (branch.trim() === '') invalid(argument, text, 'empty branch name after $branch_');
    // A branch name becomes a directory name (branch/branch-<name>); it must not become a path.
    if (/[/\\\0]/.test(branch)) invalid(argument, text, 'a branch name cannot contain /, \\ or NUL');
    if (branch === MAIN_BRANCH) branch = null;
  }
  if (rest.length > 0) {
    throw new ProcedureError(
      'UNSUPPORTED_TABLE',
      `${quote(text)} names the system table ${quote(`$${rest.join('$')}`)}; procedures act on data tables (db.table or db.table$branch_<name>)`,
    );
  }
  return { database, table, branch };
}

/**
 * The table handle of exactly the named object: database, table and branch must all exist (each
 * missing one is its own error, naming it). The handle comes from the catalog (Catalog.getTable).
 */
export async function resolveTable(catalog: ProcedureCatalog, id: TableIdentifier): Promise<FileStoreTable> {
  if (id.table === '*') {
    throw new ProcedureError('INVALID_ARGUMENT', `resolveTable needs one table, not ${id.database}.*; use resolveDatabase`);
  }
  if (!(await catalog.databaseExists(id.database))) {
    throw new ProcedureError('DATABASE_NOT_FOUND', `Database ${quote(id.database)} does not exist in catalog '${catalog.name}'`);
  }
  if ((await catalog.tableLocation(id.database, id.table)) === null) {
    throw new ProcedureError('TABLE_NOT_FOUND', `Table ${quote(`${id.database}.${id.table}`)} does not exist in catalog '${catalog.name}'`);
  }
  if (id.branch !== null && !(await catalog.branchExists(id.database, id.table, id.branch))) {
    throw new ProcedureError(
      'BRANCH_NOT_FOUND',
      `Branch ${quote(id.branch)} does not exist on table ${quote(`${id.database}.${id.table}`)} in catalog '${catalog.name}'`,
    );
  }
  return catalog.getTable({ database: id.database, table: id.table, ...(id.branch === null ? {} : { branch: id.branch }) });
}

/** Resolve `db.*`: the database must exist; returns its tables (each resolved lazily by the caller). */
export async function resolveDatabase(catalog: ProcedureCatalog, database: string): Promise<string[]> {
  if (!(await catalog.databaseExists(database))) {
    throw new ProcedureError('DATABASE_NOT_FOUND', `Database ${quote(database)} does not exist in catalog '${catalog.name}'`);
  }
  return catalog.listTables(database);
}
