/**
 * Reading a user's grants from the three places they come from:
 *
 * * Doris `SHOW GRANTS` (fe-core `Auth.getUserAuthInfo`): one row per user identity with
 *   columns UserIdentity, [Comment,] Password, Roles, GlobalPrivs, CatalogPrivs, DatabasePrivs,
 *   TablePrivs, ColPrivs, ResourcePrivs, WorkloadGroupPrivs, ... (the set grew over versions,
 *   so columns are found by name). A privilege set prints as `Select_priv,Alter_priv`
 *   (PrivBitSet.toString); entries are joined with `; ` as `ctl: privs`, `ctl.db: privs`,
 *   `ctl.db.tbl: privs`, `resource: privs`; an empty cell is `\N` (FeConstants.null_string).
 *   Releases before multi-catalog wrote `default_cluster:db` without a catalog.
 * * MariaDB/MySQL `SHOW GRANTS`: one statement per row,
 *   `GRANT SELECT, ALTER ON `db`.* TO `u`@`%``, `GRANT `role` TO `u`@`%``.
 * * The configuration (standalone mode): `"ALTER ON paimon.*.*"`, `"SELECT, ALTER ON paimon.sales.*"`,
 *   optionally written as a whole Doris statement `GRANT ALTER_PRIV ON paimon.*.* TO 'u'`.
 */
import { type Grant, type Privilege, type UserGrants, parsePrivilege } from './privileges.js';

export class GrantParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrantParseError';
  }
}

/** A result set as the upstream returned it: column names and text rows (null = SQL NULL). */
export interface ShowGrantsResult {
  columns: readonly string[];
  rows: readonly (readonly (string | null)[])[];
}

const DORIS_NULL = '\\N';

function isEmptyCell(v: string | null | undefined): boolean {
  return v === null || v === undefined || v.trim() === '' || v.trim() === DORIS_NULL || v.trim().toUpperCase() === 'NULL';
}

/** Detect the dialect of a SHOW GRANTS result and parse it. */
export function parseShowGrants(result: ShowGrantsResult): UserGrants {
  const cols = result.columns.map((c) => c.toLowerCase());
  if (cols.includes('useridentity') && cols.includes('globalprivs')) return parseDorisShowGrants(result);
  if (cols.length === 1 && cols[0]!.startsWith('grants for')) {
    return parseMariaDbGrants(result.rows.map((r) => r[0] ?? ''));
  }
  throw new GrantParseError(
    `unrecognised SHOW GRANTS result with columns (${result.columns.join(', ')}): expected Doris's UserIdentity/GlobalPrivs/... or MySQL's "Grants for ..."`,
  );
}

// ---------------------------------------------------------------------------------------------
// Doris

/** Parse `Select_priv,Alter_priv` (also space separated, and with a StarRocks-style ` (false)` suffix). */
export function parseDorisPrivSet(text: string): Privilege[] {
  const cleaned = text.replace(/\((?:true|false)\)/gi, ' ');
  const out: Privilege[] = [];
  for (const part of cleaned.split(/[,\s]+/)) {
    if (part === '') continue;
    const p = parsePrivilege(part);
    // Unknown names (newer cloud-only privileges) are ignored rather than failing the user's CALL.
    if (p !== undefined && !out.includes(p)) out.push(p);
  }
  return out;
}

/** Split `a: X,Y; b.c: Z` into [['a','X,Y'], ['b.c','Z']]. The object may contain ':' (default_cluster:db). */
function splitEntries(cell: string): [string, string][] {
  const out: [string, string][] = [];
  for (const raw of cell.split(';')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const m = /^(.*?):\s*([A-Za-z_][A-Za-z_,\s]*?)\s*(?:\((?:true|false)\))?\s*$/.exec(entry);
    // The object is everything before the last ": " that precedes the privilege list.
    const idx = entry.lastIndexOf(':');
    if (!m || idx <= 0) throw new GrantParseError(`unrecognised Doris privilege entry '${entry}': expected '<object>: <Priv_name>,...'`);
    const object = entry.slice(0, idx).trim();
    const privs = entry.slice(idx + 1).trim();
    out.push([object, privs]);
  }
  return out;
}

function stripCluster(db: string): string {
  // Doris before 2.0 prefixed database names with the cluster: `default_cluster:db`.
  const i = db.indexOf(':');
  return i >= 0 ? db.slice(i + 1) : db;
}

const INTERNAL = 'internal';

export function parseDorisShowGrants(result: ShowGrantsResult): UserGrants {
  const idx = (name: string): number => result.columns.findIndex((c) => c.toLowerCase() === name.toLowerCase());
  if (result.rows.length === 0) return { source: 'doris', grants: [], roles: [] };
  if (result.rows.length > 1) {
    // `SHOW GRANTS` for the current user returns one row; more means `SHOW ALL GRANTS`.
    throw new GrantParseError(`SHOW GRANTS returned ${result.rows.length} rows; expected the current user's single row`);
  }
  const row = result.rows[0]!;
  const cell = (name: string): string | null => {
    const i = idx(name);
    if (i < 0) return null;
    const v = row[i];
    return isEmptyCell(v) ? null : (v as string);
  };
  const grants: Grant[] = [];
  const global = cell('GlobalPrivs');
  if (global !== null) {
    const privileges = parseDorisPrivSet(global);
    if (privileges.length > 0) grants.push({ catalog: '*', database: '*', table: '*', privileges });
  }
  const ctl = cell('CatalogPrivs');
  if (ctl !== null) {
    for (const [object, privs] of splitEntries(ctl)) {
      grants.push({ catalog: object, database: '*', table: '*', privileges: parseDorisPrivSet(privs) });
    }
  }
  const db = cell('DatabasePrivs');
  if (db !== null) {
    for (const [object, privs] of splitEntries(db)) {
      const noCluster = object.includes(':') && !object.includes('.') ? stripCluster(object) : object;
      const dot = noCluster.indexOf('.');
      const [catalog, database] = dot < 0 ? [INTERNAL, stripCluster(noCluster)] : [noCluster.slice(0, dot), stripCluster(noCluster.slice(dot + 1))];
      grants.push({ catalog, database, table: '*', privileges: parseDorisPrivSet(privs) });
    }
  }
  const tbl = cell('TablePrivs');
  if (tbl !== null) {
    for (const [object, privs] of splitEntries(tbl)) {
      const parts = object.split('.');
      let catalog: string, database: string, table: string;
      if (parts.length >= 3) {
        catalog = parts[0]!;
        database = stripCluster(parts[1]!);
        table = parts.slice(2).join('.');
      } else if (parts.length === 2) {
        catalog = INTERNAL;
        database = stripCluster(parts[0]!);
        table = parts[1]!;
      } else {
        throw new GrantParseError(`unrecognised Doris table privilege object '${object}': expected ctl.db.tbl`);
      }
      grants.push({ catalog, database, table, privileges: parseDorisPrivSet(privs) });
    }
  }
  const resources: Record<string, Privilege[]> = {};
  const res = cell('ResourcePrivs');
  if (res !== null) {
    for (const [object, privs] of splitEntries(res)) resources[object] = parseDorisPrivSet(privs);
  }
  const rolesCell = cell('Roles');
  const roles = rolesCell === null ? [] : rolesCell.split(',').map((r) => r.trim()).filter((r) => r !== '');
  return { source: 'doris', grants: grants.filter((g) => g.privileges.length > 0), roles, resources };
}

// ---------------------------------------------------------------------------------------------
// MariaDB / MySQL

/** MariaDB privilege names that mean something to a Paimon procedure; the rest are ignored. */
const MARIADB_PRIVILEGES: Readonly<Record<string, readonly Privilege[]>> = {
  SELECT: ['SELECT'],
  INSERT: ['LOAD'],
  UPDATE: ['LOAD'],
  DELETE: ['LOAD'],
  ALTER: ['ALTER'],
  CREATE: ['CREATE'],
  DROP: ['DROP'],
  'SHOW VIEW': ['SHOW_VIEW'],
  SUPER: ['ADMIN'],
  'GRANT OPTION': ['GRANT'],
};
const ALL_TABLE_PRIVILEGES: readonly Privilege[] = ['SELECT', 'LOAD', 'ALTER', 'CREATE', 'DROP', 'SHOW_VIEW'];

/** Read one identifier: `quoted` (with `` escapes), 'quoted', "quoted", or bare; returns [name, rest]. */
function readIdent(s: string): [string, string, boolean] {
  const q = s[0];
  if (q === '`' || q === "'" || q === '"') {
    let out = '';
    let i = 1;
    for (; i < s.length; i++) {
      const c = s[i]!;
      if (c === q) {
        if (s[i + 1] === q) {
          out += q;
          i++;
          continue;
        }
        return [out, s.slice(i + 1), true];
      }
      out += c;
    }
    throw new GrantParseError(`unterminated quoted name in '${s}'`);
  }
  const m = /^([^\s.`'"]+)/.exec(s);
  if (!m) throw new GrantParseError(`expected a name at '${s.slice(0, 40)}'`);
  return [m[1]!, s.slice(m[1]!.length), false];
}

/** Split on commas outside parentheses (column lists: `SELECT (a, b), ALTER`). */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim() !== '') out.push(cur);
  return out.map((x) => x.trim());
}

/** Parse the rows of MariaDB's / MySQL's `SHOW GRANTS`. */
export function parseMariaDbGrants(lines: readonly string[]): UserGrants {
  const grants: Grant[] = [];
  const roles: string[] = [];
  for (const line of lines) {
    const text = line.trim();
    if (text === '') continue;
    // MariaDB lists the default role as its own row: `SET DEFAULT ROLE `r` FOR `u`@`h``.
    const def = /^SET\s+DEFAULT\s+ROLE\s+(.*?)\s+FOR\s+/is.exec(text);
    if (def) {
      const r = readIdent(def[1]!.trim())[0];
      if (r.toUpperCase() !== 'NONE' && !roles.includes(r)) roles.push(r);
      continue;
    }
    const on = /^GRANT\s+(.*?)\s+ON\s+(.*?)\s+TO\s+(.*)$/is.exec(text);
    if (!on) {
      // `GRANT `role` TO `user`@`host`` (a role granted to the user).
      const role = /^GRANT\s+(.*?)\s+TO\s+/is.exec(text);
      if (role) {
        for (const r of splitTopLevel(role[1]!)) {
          const name = readIdent(r)[0];
          if (!roles.includes(name)) roles.push(name);
        }
        continue;
      }
      throw new GrantParseError(`unrecognised SHOW GRANTS row '${text.slice(0, 120)}'`);
    }
    const privText = on[1]!;
    let objectText = on[2]!.trim();
    const tail = on[3]!;
    // Routines and proxies carry no table privilege.
    if (/^(PROCEDURE|FUNCTION|PACKAGE(\s+BODY)?)\s/i.test(objectText) || /^PROXY$/i.test(privText.trim())) continue;
    objectText = objectText.replace(/^TABLE\s+/i, '');
    let database: string;
    let table: string;
    let like = false;
    if (objectText.startsWith('*')) {
      // *.* or *
      database = '*';
      table = '*';
    } else {
      const [db, rest, quoted] = readIdent(objectText);
      database = db;
      like = true;
      void quoted;
      const r = rest.trim();
      if (r === '' ) table = '*';
      else if (r.startsWith('.')) {
        const t = r.slice(1).trim();
        table = t === '*' ? '*' : readIdent(t)[0];
      } else throw new GrantParseError(`unrecognised object '${objectText}' in '${text.slice(0, 120)}'`);
    }
    const privileges: Privilege[] = [];
    const add = (ps: readonly Privilege[]): void => {
      for (const p of ps) if (!privileges.includes(p)) privileges.push(p);
    };
    for (const item of splitTopLevel(privText)) {
      // Column-level privileges (`SELECT (a, b)`) do not cover a whole table.
      if (item.includes('(')) continue;
      const name = item.toUpperCase().replace(/\s+/g, ' ');
      if (name === 'ALL' || name === 'ALL PRIVILEGES') {
        add(ALL_TABLE_PRIVILEGES);
        if (database === '*') add(['ADMIN']);
        continue;
      }
      const mapped = MARIADB_PRIVILEGES[name];
      if (mapped) add(mapped);
    }
    if (/\bWITH\b[\s\S]*\bGRANT\s+OPTION\b/i.test(tail)) add(['GRANT']);
    if (privileges.length === 0) continue;
    const g: Grant = { catalog: '*', database, table, privileges };
    if (like && database !== '*' && table === '*') g.databaseMatch = 'like';
    grants.push(g);
  }
  return { source: 'mariadb', grants, roles };
}

// ---------------------------------------------------------------------------------------------
// Configuration strings

/**
 * Parse grants written in the configuration: `<privileges> ON <catalog>.<database>.<table>`,
 * privileges comma separated in Doris spelling (`ALTER`, `ALTER_PRIV`, `Alter_priv`) or `ALL`
 * (SELECT, LOAD, ALTER, CREATE, DROP, SHOW_VIEW; on `*.*.*` also ADMIN, elsewhere ADMIN must be
 * named on `*.*.*`). `GRANT` before and
 * `TO ...` after are allowed so that a Doris statement can be pasted.
 */
export function parseConfigGrant(text: string): Grant {
  const m = /^\s*(?:GRANT\s+)?(.+?)\s+ON\s+(\S+?)(?:\s+TO\s+.*)?\s*;?\s*$/is.exec(text);
  if (!m) throw new GrantParseError(`grant '${text}': expected '<PRIVILEGE>[, ...] ON <catalog>.<database>.<table>', e.g. 'ALTER ON paimon.*.*'`);
  const privileges: Privilege[] = [];
  for (const raw of m[1]!.split(',')) {
    const name = raw.trim();
    if (/^ALL(\s+PRIVILEGES)?$/i.test(name)) {
      for (const p of ALL_TABLE_PRIVILEGES) if (!privileges.includes(p)) privileges.push(p);
      continue;
    }
    const p = parsePrivilege(name);
    if (p === undefined) {
      throw new GrantParseError(`grant '${text}': unknown privilege '${name}' (known: SELECT, LOAD, ALTER, CREATE, DROP, ADMIN, GRANT, USAGE, SHOW_VIEW, NODE, ALL)`);
    }
    if (!privileges.includes(p)) privileges.push(p);
  }
  const parts: string[] = [];
  let rest = m[2]!;
  for (;;) {
    if (rest.startsWith('*')) {
      parts.push('*');
      rest = rest.slice(1);
    } else {
      const [name, r] = readIdent(rest);
      parts.push(name);
      rest = r;
    }
    if (rest === '') break;
    if (!rest.startsWith('.')) throw new GrantParseError(`grant '${text}': bad object name near '${rest}'`);
    rest = rest.slice(1);
  }
  if (parts.length !== 3) {
    throw new GrantParseError(`grant '${text}': the object must have three parts <catalog>.<database>.<table> (use * for any), got ${parts.length}`);
  }
  const [catalog, database, table] = parts as [string, string, string];
  // As with MariaDB's ALL PRIVILEGES ON *.*, ALL on everything includes ADMIN (the built-in
  // standalone user `root` is configured so).
  if (catalog === '*' && database === '*' && table === '*' && /(^|,)\s*ALL(\s+PRIVILEGES)?\s*(,|$)/i.test(m[1]!) && !privileges.includes('ADMIN')) {
    privileges.push('ADMIN');
  }
  if (database === '*' && table !== '*') throw new GrantParseError(`grant '${text}': a table cannot be named under database '*'`);
  if (catalog === '*' && database !== '*') throw new GrantParseError(`grant '${text}': a database cannot be named under catalog '*'`);
  return { catalog, database, table, privileges };
}

/** Parse a user's configured grants; every mistake names the grant. */
export function parseConfigGrants(texts: readonly string[]): UserGrants {
  return { source: 'config', grants: texts.map(parseConfigGrant), roles: [] };
}
