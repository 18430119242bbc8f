import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseShowGrants, parseDorisShowGrants, parseMariaDbGrants, parseConfigGrant, parseDorisPrivSet, GrantParseError } from '../../../src/security/grants-parser.js';
import { authorize } from '../../../src/security/privileges.js';

// Rows shaped as Doris fe-core Auth.getUserAuthInfo renders them (2.1/3.x column set).
const DORIS_COLUMNS = ['UserIdentity', 'Comment', 'Password', 'Roles', 'GlobalPrivs', 'CatalogPrivs', 'DatabasePrivs', 'TablePrivs', 'ColPrivs', 'ResourcePrivs', 'WorkloadGroupPrivs'];

describe('Doris SHOW GRANTS', () => {
  test('parses global, catalog, database, table and resource privileges and roles', () => {
    const g = parseShowGrants({
      columns: DORIS_COLUMNS,
      rows: [["'ops'@'%'", '', 'Yes', 'ops_role,reader', 'Select_priv', 'paimon: Load_priv; hive: Select_priv,Drop_priv',
        'internal.information_schema: Select_priv; paimon.sales: Alter_priv,Create_priv', 'paimon.web.events: Alter_priv', '\\N', 'spark0: Usage_priv', 'normal: Usage_priv']],
    });
    assert.equal(g.source, 'doris');
    assert.deepEqual(g.roles, ['ops_role', 'reader']);
    assert.deepEqual(g.grants, [
      { catalog: '*', database: '*', table: '*', privileges: ['SELECT'] },
      { catalog: 'paimon', database: '*', table: '*', privileges: ['LOAD'] },
      { catalog: 'hive', database: '*', table: '*', privileges: ['SELECT', 'DROP'] },
      { catalog: 'internal', database: 'information_schema', table: '*', privileges: ['SELECT'] },
      { catalog: 'paimon', database: 'sales', table: '*', privileges: ['ALTER', 'CREATE'] },
      { catalog: 'paimon', database: 'web', table: 'events', privileges: ['ALTER'] },
    ]);
    assert.deepEqual(g.resources, { spark0: ['USAGE'] });
    const who = { user: 'ops', host: 'h' };
    const req = { privilege: 'ALTER' as const, level: 'table' as const, catalog: 'paimon', database: 'web', procedure: 'create_tag' };
    assert.equal(authorize(who, g, { ...req, table: 'events' }).ok, true);
    assert.equal(authorize(who, g, { ...req, table: 'clicks' }).ok, false);
  });
  test('root: Node_priv,Admin_priv globally and NULL cells', () => {
    const g = parseDorisShowGrants({ columns: DORIS_COLUMNS, rows: [["'root'@'%'", null, 'No', 'operator', 'Node_priv,Admin_priv', '\\N', '\\N', '\\N', '\\N', '\\N', '\\N']] });
    assert.deepEqual(g.grants, [{ catalog: '*', database: '*', table: '*', privileges: ['NODE', 'ADMIN'] }]);
  });
  test('pre-2.0 format without catalogs and with the cluster prefix maps to the internal catalog', () => {
    const g = parseDorisShowGrants({
      columns: ['UserIdentity', 'Password', 'GlobalPrivs', 'DatabasePrivs', 'TablePrivs', 'ResourcePrivs'],
      rows: [["'u'@'%'", 'No', 'Select_priv ', 'default_cluster:db1: Alter_priv ', 'default_cluster:db1.t1: Drop_priv ', '\\N']],
    });
    assert.deepEqual(g.grants.slice(1), [
      { catalog: 'internal', database: 'db1', table: '*', privileges: ['ALTER'] },
      { catalog: 'internal', database: 'db1', table: 't1', privileges: ['DROP'] },
    ]);
  });
  test('privilege sets in both separators, ignoring unknown future names', () => {
    assert.deepEqual(parseDorisPrivSet('Select_priv,Load_priv,Cluster_usage_priv'), ['SELECT', 'LOAD']);
    assert.deepEqual(parseDorisPrivSet('Select_priv Alter_priv  (false)'), ['SELECT', 'ALTER']);
  });
  test('several rows (SHOW ALL GRANTS) and garbage are refused with a clear error', () => {
    assert.throws(() => parseDorisShowGrants({ columns: DORIS_COLUMNS, rows: [DORIS_COLUMNS, DORIS_COLUMNS] }), GrantParseError);
    assert.throws(() => parseShowGrants({ columns: ['a', 'b'], rows: [] }), /unrecognised SHOW GRANTS/);
  });
});

describe('MariaDB SHOW GRANTS', () => {
  test('parses global, database and table grants, ALL, GRANT OPTION, roles; ignores routines and columns', () => {
    const g = parseShowGrants({
      columns: ['Grants for ops@%'],
      rows: [
        ["GRANT USAGE ON *.* TO `ops`@`%` IDENTIFIED BY PASSWORD '*0123456789ABCDEF0123456789ABCDEF01234567'"],
        ['GRANT SELECT, ALTER, ALTER ROUTINE ON `sales`.* TO `ops`@`%`'],
        ['GRANT ALL PRIVILEGES ON `web`.`events` TO `ops`@`%` WITH GRANT OPTION'],
        ['GRANT SELECT (`id`, `name`), INSERT ON `web`.`users` TO `ops`@`%`'],
        ['GRANT EXECUTE ON PROCEDURE `sales`.`p` TO `ops`@`%`'],
        ['GRANT `maint_role` TO `ops`@`%`'],
      ],
    });
    assert.equal(g.source, 'mariadb');
    assert.deepEqual(g.roles, ['maint_role']);
    assert.deepEqual(g.grants, [
      { catalog: '*', database: 'sales', table: '*', privileges: ['SELECT', 'ALTER'], databaseMatch: 'like' },
      { catalog: '*', database: 'web', table: 'events', privileges: ['SELECT', 'LOAD', 'ALTER', 'CREATE', 'DROP', 'SHOW_VIEW', 'GRANT'] },
      { catalog: '*', database: 'web', table: 'users', privileges: ['LOAD'] },
    ]);
  });
  test('ALL PRIVILEGES ON *.* and SUPER carry ADMIN', () => {
    assert.ok(parseMariaDbGrants(['GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION']).grants[0]!.privileges.includes('ADMIN'));
    assert.deepEqual(parseMariaDbGrants(['GRANT SUPER ON *.* TO `a`@`%`']).grants[0]!.privileges, ['ADMIN']);
  });
  test('escaped backticks in names', () => {
    assert.equal(parseMariaDbGrants(['GRANT ALTER ON `we``ird`.* TO `a`@`%`']).grants[0]!.database, 'we`ird');
  });
});

describe('configuration grants', () => {
  test('three-part objects with Doris spellings and a pasted GRANT statement', () => {
    assert.deepEqual(parseConfigGrant('ALTER ON paimon.*.*'), { catalog: 'paimon', database: '*', table: '*', privileges: ['ALTER'] });
    assert.deepEqual(parseConfigGrant("GRANT SELECT_PRIV, Alter_priv ON `paimon`.`sales`.`orders` TO 'ops'@'%'"),
      { catalog: 'paimon', database: 'sales', table: 'orders', privileges: ['SELECT', 'ALTER'] });
  });
  test('mistakes are named', () => {
    assert.throws(() => parseConfigGrant('ALTER ON paimon.*'), /three parts/);
    assert.throws(() => parseConfigGrant('FROB ON a.b.c'), /unknown privilege 'FROB'/);
    assert.throws(() => parseConfigGrant('ALTER paimon.*.*'), /expected/);
    assert.throws(() => parseConfigGrant('ALTER ON paimon.*.t'), /table cannot be named/);
  });
});
