import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  authorize, covers, parsePrivilege, requirementFor, identityOf, likeMatches,
  type UserGrants, type PrivilegeRequirement, type Privilege,
} from '../../../src/security/privileges.js';
import { parseConfigGrants } from '../../../src/security/grants-parser.js';
import { ERROR_CODES } from '../../../procedures/framework/errors.js';
import { createDefaultRegistry } from '../../../procedures/index.js';
import { jobProcedures } from '../../../procedures/jobs/job-procedures.js';
import { ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { traitsOf } from '../../../procedures/framework/signature.js';

const who = { user: 'ops', host: '10.0.0.7' };
const g = (...texts: string[]): UserGrants => parseConfigGrants(texts);
const tableReq = (privilege: Privilege, procedure = 'expire_snapshots'): PrivilegeRequirement =>
  ({ privilege, level: 'table', catalog: 'paimon', database: 'sales', table: 'orders', procedure });

describe('authorize', () => {
  test('a table grant satisfies a table requirement on exactly that table only', () => {
    assert.equal(authorize(who, g('ALTER ON paimon.sales.orders'), tableReq('ALTER')).ok, true);
    const other = authorize(who, g('ALTER ON paimon.sales.items'), tableReq('ALTER'));
    assert.equal(other.ok, false);
  });
  test('wider grants cover narrower objects (database, catalog, global)', () => {
    for (const t of ['ALTER ON paimon.sales.*', 'ALTER ON paimon.*.*', 'ALTER ON *.*.*']) {
      assert.equal(authorize(who, g(t), tableReq('ALTER')).ok, true, t);
    }
  });
  test('a grant on another catalog does not help, catalog names compare case-insensitively', () => {
    assert.equal(authorize(who, g('ALTER ON internal.*.*'), tableReq('ALTER')).ok, false);
    assert.equal(authorize(who, g('ALTER ON PAIMON.sales.*'), tableReq('ALTER')).ok, true);
    assert.equal(authorize(who, g('ALTER ON paimon.Sales.*'), tableReq('ALTER')).ok, false);
  });
  test('SELECT does not satisfy ALTER; ADMIN satisfies everything but only as a global grant', () => {
    assert.equal(authorize(who, g('SELECT ON *.*.*'), tableReq('ALTER')).ok, false);
    assert.equal(authorize(who, g('ADMIN ON *.*.*'), tableReq('ALTER')).ok, true);
    const adminReq: PrivilegeRequirement = { privilege: 'ADMIN', level: 'global', catalog: 'paimon', procedure: 'remove_orphan_files' };
    assert.equal(authorize(who, g('ADMIN ON *.*.*'), adminReq).ok, true);
    assert.equal(authorize(who, g('ADMIN ON paimon.*.*'), adminReq).ok, false);
    assert.equal(authorize(who, g('ALL ON *.*.*'), adminReq).ok, true, 'ALL on everything includes ADMIN');
    assert.equal(authorize(who, g('ALL ON paimon.*.*'), adminReq).ok, false);
  });
  test('a table grant never satisfies a database-wide requirement', () => {
    const dbReq: PrivilegeRequirement = { privilege: 'ALTER', level: 'database', catalog: 'paimon', database: 'sales', procedure: 'compact_database' };
    assert.equal(authorize(who, g('ALTER ON paimon.sales.orders'), dbReq).ok, false);
    assert.equal(authorize(who, g('ALTER ON paimon.sales.*'), dbReq).ok, true);
  });
  test('denials carry the framework codes, errnos and name privilege, object, procedure and user', () => {
    const t = authorize(who, g('SELECT ON paimon.*.*'), tableReq('ALTER'));
    assert.equal(t.ok, false);
    if (t.ok) return;
    assert.equal(t.error.code, 'TABLE_ACCESS_DENIED');
    assert.equal(t.error.errno, ERROR_CODES.TABLE_ACCESS_DENIED.errno);
    assert.equal(t.error.errno, 1142);
    assert.equal(t.error.sqlState, '42000');
    for (const part of ['ALTER', 'paimon.sales.orders', 'expire_snapshots', "'ops'@'10.0.0.7'"]) assert.ok(t.error.message.includes(part), t.error.message);
    const d = authorize(who, g(), { privilege: 'ALTER', level: 'database', catalog: 'paimon', database: 'sales', procedure: 'compact_database' });
    assert.ok(!d.ok && d.error.code === 'DATABASE_ACCESS_DENIED' && d.error.errno === 1044);
    const a = authorize(who, g('ALTER ON *.*.*'), { privilege: 'ADMIN', level: 'global', catalog: 'paimon', procedure: 'remove_orphan_files' });
    assert.ok(!a.ok && a.error.code === 'ADMIN_REQUIRED' && a.error.errno === 1227);
  });
  test('MariaDB-style LIKE database patterns', () => {
    assert.equal(likeMatches('sales%', 'sales_eu'), true);
    assert.equal(likeMatches('sales\\_eu', 'salesXeu'), false);
    assert.equal(likeMatches('sales_eu', 'salesXeu'), true);
    assert.equal(covers({ catalog: '*', database: 'sa%', table: '*', databaseMatch: 'like' }, { level: 'table', catalog: 'paimon', database: 'sales', table: 't' }), true);
  });
});

describe('requirementFor', () => {
  test('widens table specs to the database for db.* and to the catalog without a database', () => {
    assert.deepEqual(requirementFor('remove_orphan_files', { privilege: 'ALTER', on: 'table' }, { catalog: 'paimon', database: 'sales', table: '*' }),
      { privilege: 'ALTER', level: 'database', catalog: 'paimon', database: 'sales', procedure: 'remove_orphan_files' });
    assert.equal(requirementFor('compact_database', { privilege: 'ALTER', on: 'database' }, { catalog: 'paimon' }).level, 'catalog');
    assert.equal(requirementFor('x', { privilege: 'ADMIN', on: 'table' }, { catalog: 'paimon', database: 'a', table: 'b' }).level, 'global');
  });
});

test('parsePrivilege accepts Doris and MySQL spellings', () => {
  assert.equal(parsePrivilege('Alter_priv'), 'ALTER');
  assert.equal(parsePrivilege('ALTER_PRIV'), 'ALTER');
  assert.equal(parsePrivilege('select'), 'SELECT');
  assert.equal(parsePrivilege('INSERT'), 'LOAD');
  assert.equal(parsePrivilege('Show_view_priv'), 'SHOW_VIEW');
  assert.equal(parsePrivilege('FROB'), undefined);
});

test('identityOf strips the port and IPv4-mapped prefix', () => {
  assert.deepEqual(identityOf('u', '127.0.0.1:5555'), { user: 'u', host: '127.0.0.1' });
  assert.deepEqual(identityOf('u', '::ffff:10.1.2.3:5555'), { user: 'u', host: '10.1.2.3' });
  assert.deepEqual(identityOf('u', '[::1]:5555'), { user: 'u', host: '::1' });
});

/** The grant object that holds exactly a requirement of this level (sales.orders in catalog paimon). */
function objectOf(level: string): string {
  return level === 'table' ? 'paimon.sales.orders' : level === 'database' ? 'paimon.sales.*' : level === 'catalog' ? 'paimon.*.*' : '*.*.*';
}

/** The code a caller without the privilege gets at this level. */
function deniedCode(level: string): string {
  return level === 'table' ? 'TABLE_ACCESS_DENIED' : level === 'global' ? 'ADMIN_REQUIRED' : 'DATABASE_ACCESS_DENIED';
}

// Every registered procedure: the built-in ones and the job procedures.
const registered = [...createDefaultRegistry().list(), ...new ProcedureRegistry(jobProcedures(() => undefined)).list()].map((r) => r.signature);

// For every procedure whose privilege is checked (not caller-scoped), users with exactly,
// more than and less than the privilege its signature declares.
describe('privilege matrix over every procedure', () => {
  for (const sig of registered.filter((s) => !traitsOf(s).callerScoped)) {
    const proc = sig.name;
    const spec = sig.privilege;
    test(proc, () => {
      const target = { catalog: 'paimon', database: 'sales', table: 'orders' };
      const req = requirementFor(proc, spec, target);
      const obj = objectOf(req.level);
      const exactly = g(`${spec.privilege} ON ${obj}`);
      // ADMIN counts only as a global grant
      const more = g(`SELECT, LOAD, ${spec.privilege}, DROP ON ${req.level === 'global' ? '*.*.*' : 'paimon.*.*'}`);
      const admin = g('ADMIN ON *.*.*');
      const less = g(`SELECT, LOAD, CREATE ON paimon.*.*`, `${spec.privilege} ON paimon.other.*`);
      assert.equal(authorize(who, exactly, req).ok, true, 'exactly');
      assert.equal(authorize(who, more, req).ok, true, 'more');
      assert.equal(authorize(who, admin, req).ok, true, 'admin');
      const r = authorize(who, less, req);
      assert.equal(r.ok, false, 'less');
      if (!r.ok) assert.equal(r.error.code, deniedCode(req.level));
    });
  }
});

// The same matrix against every other privilege, over all registered procedures (the
// caller-scoped ones too, whose declared privilege SHOW PROCEDURES lists).
describe('privilege matrix over the registered procedures (declared privileges)', () => {
  test('there are procedures to check', () => assert.ok(registered.length >= 4));
  for (const sig of registered) {
    test(`${sig.name} needs ${sig.privilege.privilege} on the ${sig.privilege.on}`, () => {
      const req = requirementFor(sig.name, sig.privilege, { catalog: 'paimon', database: 'sales', table: 'orders' });
      const p = sig.privilege.privilege;
      const obj = objectOf(req.level);
      const others = (['SELECT', 'LOAD', 'ALTER', 'CREATE', 'DROP'] as const).filter((x) => x !== p);
      assert.equal(authorize(who, g(`${p} ON ${obj}`), req).ok, true, 'exactly');
      assert.equal(authorize(who, g(`${[...others, p].join(', ')} ON *.*.*`), req).ok, true, 'more');
      const r = authorize(who, g(`${others.join(', ')} ON *.*.*`, `${p} ON paimon.elsewhere.*`, `${p} ON other_catalog.*.*`), req);
      assert.equal(r.ok, false, 'less');
      if (!r.ok) assert.equal(r.error.code, deniedCode(req.level));
    });
  }
});
