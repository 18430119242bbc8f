/**
 * The privilege model for intercepted CALLs, after Apache Doris's (fe-core
 * `mysql/privilege/Privilege.java`, `PrivPredicate.java`): privileges are granted on a
 * catalog.database.table pattern (`*` = any), a grant on a wider level covers everything
 * under it, and ADMIN satisfies every privilege check except NODE (as Doris's predicates
 * `SELECT`, `LOAD`, `ALTER`, `CREATE`, `DROP` are "the privilege OR Admin_priv").
 *
 * Pure: `authorize(user, grants, requirement)` takes values and returns a value. Where the
 * grants come from (the FE's `SHOW GRANTS`, MariaDB's, the configuration) is grants-parser.ts.
 */

import { ERROR_CODES, type ProcedureErrorCode } from '../../procedures/framework/errors.js';

/** Doris's privileges, by the names its GRANT statement accepts (without `_PRIV`). */
export const PRIVILEGES = ['NODE', 'ADMIN', 'GRANT', 'SELECT', 'LOAD', 'ALTER', 'CREATE', 'DROP', 'USAGE', 'SHOW_VIEW'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

/** How `SHOW GRANTS` on Doris spells each privilege (PrivBitSet.toString). */
export const DORIS_PRIVILEGE_NAMES: Readonly<Record<Privilege, string>> = {
  NODE: 'Node_priv',
  ADMIN: 'Admin_priv',
  GRANT: 'Grant_priv',
  SELECT: 'Select_priv',
  LOAD: 'Load_priv',
  ALTER: 'Alter_priv',
  CREATE: 'Create_priv',
  DROP: 'Drop_priv',
  USAGE: 'Usage_priv',
  SHOW_VIEW: 'Show_view_priv',
};

/** Parse a privilege name in any of the spellings users and servers use; undefined if unknown. */
export function parsePrivilege(name: string): Privilege | undefined {
  const n = name.trim().toUpperCase().replace(/\s+/g, '_').replace(/_PRIV$/, '');
  if ((PRIVILEGES as readonly string[]).includes(n)) return n as Privilege;
  // Doris's information_schema names LOAD as INSERT (Privilege.privInDorisToMysql).
  if (n === 'INSERT') return 'LOAD';
  return undefined;
}

/** Where a grant applies. `*` matches any name at that position. */
export interface GrantTarget {
  catalog: string;
  database: string;
  table: string;
}

export interface Grant extends GrantTarget {
  privileges: readonly Privilege[];
  /**
   * 'like': the database name is a MySQL LIKE pattern (`%`, `_`, `\\` escapes), as MariaDB and
   * MySQL treat database names in GRANT. Default 'exact'.
   */
  databaseMatch?: 'exact' | 'like';
}

/** Everything known about one user's rights. */
export interface UserGrants {
  /** Where the grants came from, for messages and audit. */
  source: 'doris' | 'mariadb' | 'config';
  grants: readonly Grant[];
  /** Role names as the server reports them (informational: Doris merges role privileges into the rows). */
  roles: readonly string[];
  /** Grants on resources (Doris `ResourcePrivs`): resource name -> privileges. */
  resources?: Readonly<Record<string, readonly Privilege[]>>;
}

/** The level a procedure needs its privilege on. */
export type PrivilegeLevel = 'table' | 'database' | 'catalog' | 'global';

/** What one CALL needs: the privilege, on which object, for which procedure. */
export interface PrivilegeRequirement {
  privilege: Privilege;
  level: PrivilegeLevel;
  catalog: string;
  /** Required for level 'database' and 'table'. */
  database?: string;
  /** Required for level 'table'. */
  table?: string;
  /** The procedure's name, for the message. */
  procedure: string;
}

/** The user as MySQL errors name them: 'name'@'host'. */
export interface UserIdentity {
  user: string;
  host: string;
}

/**
 * Stable symbolic codes of the access errors; the names, errnos and SQLSTATEs are the
 * procedure framework's (procedures/framework/errors.ts ERROR_CODES): TABLE_ACCESS_DENIED 1142,
 * DATABASE_ACCESS_DENIED 1044 (also catalog-wide), ADMIN_REQUIRED 1227.
 */
export type AccessErrorCode = Extract<ProcedureErrorCode, 'TABLE_ACCESS_DENIED' | 'DATABASE_ACCESS_DENIED' | 'ADMIN_REQUIRED'>;

/** Same shape as the procedure framework's errors: a code, MySQL errno and SQLSTATE, a message. */
export interface AccessDenied {
  code: AccessErrorCode;
  errno: number;
  sqlState: string;
  message: string;
}

export type AuthorizationResult = { ok: true; grantedBy: Grant } | { ok: false; error: AccessDenied };

const LEVEL_DEPTH: Record<PrivilegeLevel, number> = { global: 0, catalog: 1, database: 2, table: 3 };

/** How deep a grant pattern reaches: *.*.* is global, c.*.* catalog, c.d.* database, c.d.t table. */
export function grantLevel(g: GrantTarget): PrivilegeLevel {
  if (g.table !== '*') return 'table';
  if (g.database !== '*') return 'database';
  if (g.catalog !== '*') return 'catalog';
  return 'global';
}

/** Catalog names compare case-insensitively (Doris does); database and table names exactly. */
function nameMatches(pattern: string, name: string | undefined, caseInsensitive: boolean): boolean {
  if (pattern === '*') return true;
  if (name === undefined) return false;
  return caseInsensitive ? pattern.toLowerCase() === name.toLowerCase() : pattern === name;
}

/**
 * Does a grant's pattern cover the required object at the required level? A grant covers an
 * object when every part of the object the level names matches, and the grant is not narrower
 * than the level (a table grant never satisfies a database-wide requirement).
 */
export function covers(g: GrantTarget & { databaseMatch?: 'exact' | 'like' }, req: Pick<PrivilegeRequirement, 'level' | 'catalog' | 'database' | 'table'>): boolean {
  const depth = LEVEL_DEPTH[req.level];
  const grantDepth = LEVEL_DEPTH[grantLevel(g)];
  if (grantDepth > depth) return false;
  if (depth >= 1 && !nameMatches(g.catalog, req.catalog, true)) return false;
  if (depth >= 2) {
    const ok =
      'databaseMatch' in g && g.databaseMatch === 'like'
        ? likeMatches(g.database, req.database)
        : nameMatches(g.database, req.database, false);
    if (!ok) return false;
  }
  if (depth >= 3 && !nameMatches(g.table, req.table, false)) return false;
  return true;
}

/** MySQL LIKE semantics for database names in grants: `%` any run, `_` one char, `\\` escapes. */
export function likeMatches(pattern: string, name: string | undefined): boolean {
  if (pattern === '*') return true;
  if (name === undefined) return false;
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) {
      re += escapeRegExp(pattern[++i] as string);
    } else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += escapeRegExp(c);
  }
  return new RegExp(re + '$', 's').test(name);
}

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Does a privilege set satisfy the wanted privilege? ADMIN implies everything except NODE. */
export function satisfies(have: readonly Privilege[], wanted: Privilege): boolean {
  if (have.includes(wanted)) return true;
  if (wanted !== 'NODE' && have.includes('ADMIN')) return true;
  return false;
}

function quoteName(s: string): string {
  return s.replace(/'/g, "''");
}

/** The object a requirement names, as `catalog.database.table`. */
export function describeObject(req: Pick<PrivilegeRequirement, 'level' | 'catalog' | 'database' | 'table'>): string {
  switch (req.level) {
    case 'global':
      return '*.*.*';
    case 'catalog':
      return `${req.catalog}.*.*`;
    case 'database':
      return `${req.catalog}.${req.database ?? '?'}`;
    case 'table':
      return `${req.catalog}.${req.database ?? '?'}.${req.table ?? '?'}`;
  }
}

/** Build the access-denied error for a requirement (ERR 1142 / 1044 / 1227 as MySQL words them). */
export function accessDenied(who: UserIdentity, req: PrivilegeRequirement): AccessDenied {
  const u = `'${quoteName(who.user)}'@'${quoteName(who.host)}'`;
  const object = describeObject(req);
  const why = `procedure ${req.procedure} needs ${req.privilege} on ${req.level === 'global' ? 'the whole system' : `${req.level} ${object}`}`;
  let code: AccessErrorCode;
  let message: string;
  if (req.privilege === 'ADMIN' || req.privilege === 'NODE' || req.level === 'global') {
    code = 'ADMIN_REQUIRED';
    message = `Access denied for user ${u}; you need (at least one of) the ${req.privilege} privilege(s) for this operation (${why})`;
  } else if (req.level === 'table') {
    code = 'TABLE_ACCESS_DENIED';
    message = `${req.privilege} command denied to user ${u} for table '${object}' (${why})`;
  } else {
    code = 'DATABASE_ACCESS_DENIED';
    message = `Access denied for user ${u} to ${req.level === 'catalog' ? 'catalog' : 'database'} '${object}' (${why})`;
  }
  return { code, errno: ERROR_CODES[code].errno, sqlState: ERROR_CODES[code].sqlState, message };
}

/** Check one requirement against a user's grants. */
export function authorize(who: UserIdentity, grants: UserGrants, req: PrivilegeRequirement): AuthorizationResult {
  validateRequirement(req);
  for (const g of grants.grants) {
    if (!satisfies(g.privileges, req.privilege)) continue;
    // ADMIN (and NODE) are global privileges in Doris: only a global grant carries them.
    if ((req.privilege === 'ADMIN' || req.privilege === 'NODE') && grantLevel(g) !== 'global') continue;
    if (covers(g, req)) return { ok: true, grantedBy: g };
  }
  return { ok: false, error: accessDenied(who, req) };
}

/** Check several requirements; the first one that fails is reported. */
export function authorizeAll(who: UserIdentity, grants: UserGrants, reqs: readonly PrivilegeRequirement[]): AuthorizationResult | { ok: true; grantedBy: null } {
  let last: AuthorizationResult | { ok: true; grantedBy: null } = { ok: true, grantedBy: null };
  for (const r of reqs) {
    const res = authorize(who, grants, r);
    if (!res.ok) return res;
    last = res;
  }
  return last;
}

function validateRequirement(req: PrivilegeRequirement): void {
  if ((req.level === 'database' || req.level === 'table') && !req.database) {
    throw new Error(`privilege requirement of ${req.procedure}: level ${req.level} needs a database`);
  }
  if (req.level === 'table' && !req.table) {
    throw new Error(`privilege requirement of ${req.procedure}: level table needs a table`);
  }
}

/** The identity from a session's user and "ip:port" client address. */
export function identityOf(user: string, clientAddress: string): UserIdentity {
  let host = clientAddress;
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(clientAddress);
  if (m && m[1] !== undefined) host = m[1];
  if (host.startsWith('::ffff:')) host = host.slice(7);
  return { user, host };
}

/** The ADMIN requirement for a forced orphan cleanup below the configured safety floor. */
export function orphanFloorRequirement(procedure: string): PrivilegeRequirement {
  return { privilege: 'ADMIN', level: 'global', catalog: '*', procedure };
}

/** What the procedure framework declares (procedures/framework/signature.ts PrivilegeSpec), structurally. */
export interface PrivilegeSpecLike {
  readonly privilege: Privilege;
  readonly on: 'table' | 'database' | 'catalog';
}

/**
 * The requirement of one CALL from its declared spec and the resolved target. A database-wide
 * call on all databases (`db` absent or `*`) needs the privilege on the catalog; a table-level
 * spec with table `*` (e.g. remove_orphan_files on `db.*`) needs it on the database.
 */
export function requirementFor(
  procedure: string,
  spec: PrivilegeSpecLike,
  target: { catalog: string; database?: string | null; table?: string | null },
): PrivilegeRequirement {
  const db = target.database && target.database !== '*' ? target.database : undefined;
  const tbl = target.table && target.table !== '*' ? target.table : undefined;
  if (spec.privilege === 'ADMIN' || spec.privilege === 'NODE') {
    return { privilege: spec.privilege, level: 'global', catalog: target.catalog, procedure };
  }
  let level: PrivilegeLevel = spec.on;
  if (level === 'table' && tbl === undefined) level = 'database';
  if (level === 'database' && db === undefined) level = 'catalog';
  const req: PrivilegeRequirement = { privilege: spec.privilege, level, catalog: target.catalog, procedure };
  if (level === 'database' || level === 'table') req.database = db;
  if (level === 'table') req.table = tbl;
  return req;
}
