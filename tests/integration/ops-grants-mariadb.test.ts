import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import mysql, { type FieldPacket, type RowDataPacket } from 'mysql2/promise';
import { parseShowGrants } from '../../src/security/grants-parser.js';
import { authorize, requirementFor, type UserGrants } from '../../src/security/privileges.js';
import { GrantCache } from '../../src/security/grant-cache.js';
import { createDefaultRegistry } from '../../procedures/index.js';
import { traitsOf } from '../../procedures/framework/signature.js';
import { mariadbEnv, scratchDatabase, adminConnection, testSecret } from './ops-env.js';

// Users with exactly, more than and less than the privilege each procedure needs, created in
// the real MariaDB; their grants are read back with SHOW GRANTS on their own session.
const suffix = Math.random().toString(16).slice(2, 8);
const PASSWORD = testSecret('grants');
let db = '';
let other = '';
const users = {
  exactDb: `ops_exact_db_${suffix}`,
  exactTable: `ops_exact_tbl_${suffix}`,
  more: `ops_more_${suffix}`,
  less: `ops_less_${suffix}`,
  viaRole: `ops_role_${suffix}`,
  none: `ops_none_${suffix}`,
};
const role = `ops_maint_${suffix}`;

async function showGrantsAs(user: string): Promise<{ grants: UserGrants; raw: string[] }> {
  const env = mariadbEnv();
  const c = await mysql.createConnection({ host: env.host, port: env.port, user, password: PASSWORD });
  try {
    const [rows, fields] = (await c.query({ sql: 'SHOW GRANTS', rowsAsArray: true })) as unknown as [(string | null)[][], FieldPacket[]];
    return { grants: parseShowGrants({ columns: fields.map((f) => f.name), rows }), raw: rows.map((r) => String(r[0])) };
  } finally {
    await c.end();
  }
}

before(async () => {
  db = await scratchDatabase('ops_sales');
  other = await scratchDatabase('ops_other');
  const c = await adminConnection(db);
  try {
    await c.query('CREATE TABLE orders (id INT)');
    for (const u of Object.values(users)) await c.query(`CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?`, [u, PASSWORD]);
    await c.query(`GRANT ALTER ON \`${db}\`.* TO ?@'127.0.0.1'`, [users.exactDb]);
    await c.query(`GRANT ALTER ON \`${db}\`.\`orders\` TO ?@'127.0.0.1'`, [users.exactTable]);
    await c.query(`GRANT SELECT, INSERT, ALTER, DROP ON *.* TO ?@'127.0.0.1'`, [users.more]);
    await c.query(`GRANT SELECT, INSERT ON \`${db}\`.* TO ?@'127.0.0.1'`, [users.less]);
    await c.query(`GRANT ALTER ON \`${other}\`.* TO ?@'127.0.0.1'`, [users.less]);
    await c.query(`GRANT ALTER ROUTINE ON \`${db}\`.* TO ?@'127.0.0.1'`, [users.less]);
    await c.query(`CREATE ROLE ${role}`);
    await c.query(`GRANT ALTER ON \`${db}\`.* TO ${role}`);
    await c.query(`GRANT ${role} TO ?@'127.0.0.1'`, [users.viaRole]);
    await c.query(`SET DEFAULT ROLE ${role} FOR ?@'127.0.0.1'`, [users.viaRole]);
  } finally {
    await c.end();
  }
});

after(async () => {
  const c = await adminConnection();
  try {
    for (const u of Object.values(users)) await c.query(`DROP USER IF EXISTS ?@'127.0.0.1'`, [u]);
    await c.query(`DROP ROLE IF EXISTS ${role}`);
    await c.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await c.query(`DROP DATABASE IF EXISTS \`${other}\``);
  } finally {
    await c.end();
  }
});

describe('MariaDB SHOW GRANTS on the user\'s own session', () => {
  test('the parsed grants are what was granted', async () => {
    const exact = await showGrantsAs(users.exactDb);
    assert.ok(exact.raw.some((l) => l.startsWith('GRANT USAGE ON *.*')), exact.raw.join('\n'));
    assert.deepEqual(exact.grants.grants, [{ catalog: '*', database: db, table: '*', privileges: ['ALTER'], databaseMatch: 'like' }]);
    const tbl = await showGrantsAs(users.exactTable);
    assert.deepEqual(tbl.grants.grants, [{ catalog: '*', database: db, table: 'orders', privileges: ['ALTER'] }]);
    const less = await showGrantsAs(users.less);
    assert.ok(less.raw.some((l) => /ALTER ROUTINE/.test(l)), less.raw.join('\n'));
    assert.ok(!less.grants.grants.some((g) => g.database === db && g.privileges.includes('ALTER')), 'ALTER ROUTINE must not count as ALTER');
    const viaRole = await showGrantsAs(users.viaRole);
    assert.deepEqual(viaRole.grants.roles, [role]);
    const admin = await (async () => {
      const env = mariadbEnv();
      const c = await mysql.createConnection({ host: env.host, port: env.port, user: env.user, password: env.password });
      try {
        const [rows, fields] = (await c.query({ sql: 'SHOW GRANTS', rowsAsArray: true })) as unknown as [(string | null)[][], FieldPacket[]];
        return parseShowGrants({ columns: fields.map((f) => f.name), rows });
      } finally {
        await c.end();
      }
    })();
    assert.ok(admin.grants.some((g) => g.database === '*' && g.privileges.includes('ADMIN') && g.privileges.includes('GRANT')));
  });

  test('matrix: every procedure with users that have exactly, more than and less than its privilege', async () => {
    const who = (user: string) => ({ user, host: '127.0.0.1' });
    const cache = new GrantCache({ ttlMs: 60_000 });
    const grantsOf = (u: string) => cache.get(GrantCache.key(u, '127.0.0.1'), async () => (await showGrantsAs(u)).grants);
    // The registered procedures whose privilege is checked (the job procedures are caller-scoped)
    // and is the ALTER on a table or database these users hold or lack (catalog-level ALTER, as
    // compact_database's, is in the unit matrix of tests/unit/security/privileges.test.ts).
    const checked = createDefaultRegistry()
      .list()
      .map((r) => r.signature)
      .filter((s) => !traitsOf(s).callerScoped && s.privilege.privilege === 'ALTER' && (s.privilege.on === 'table' || s.privilege.on === 'database'));
    assert.ok(checked.length > 0, 'there are procedures to check');
    for (const { name: procedure, privilege: spec } of checked) {
      const req = requirementFor(procedure, spec, { catalog: 'paimon', database: db, table: 'orders' });
      const exactUser = spec.on === 'table' ? users.exactTable : users.exactDb;
      assert.equal(authorize(who(exactUser), await grantsOf(exactUser), req).ok, true, `${procedure}: exactly`);
      assert.equal(authorize(who(users.more), await grantsOf(users.more), req).ok, true, `${procedure}: more`);
      assert.equal(authorize(who(users.exactDb), await grantsOf(users.exactDb), req).ok, true, `${procedure}: database grant covers`);
      assert.equal(authorize(who(users.viaRole), await grantsOf(users.viaRole), req).ok, true, `${procedure}: through the user's default role`);
      for (const u of [users.less, users.none]) {
        const r = authorize(who(u), await grantsOf(u), req);
        assert.equal(r.ok, false, `${procedure}: ${u} must be refused`);
        if (!r.ok) {
          assert.equal(r.error.code, spec.on === 'table' ? 'TABLE_ACCESS_DENIED' : 'DATABASE_ACCESS_DENIED');
          assert.equal(r.error.errno, spec.on === 'table' ? 1142 : 1044);
          assert.ok(r.error.message.includes(procedure) && r.error.message.includes('ALTER') && r.error.message.includes(db));
        }
      }
      if (spec.on === 'database') {
        const r = authorize(who(users.exactTable), await grantsOf(users.exactTable), req);
        assert.equal(r.ok, false, `${procedure}: a table grant is not a database grant`);
      }
    }
  });
});
