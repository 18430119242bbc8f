import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isShowDiagnostics, literalValue, parseDescribe, parseKill, parseSet, parseShow, parseSwitch, parseUse } from '../../../src/router/session-statement.js';

describe('session statements (both modes read them with the same parser)', () => {
  test('USE reads a database or catalog.database, with quotes, comments and a trailing semicolon', () => {
    assert.deepEqual(parseUse('/* c */ use `my db` ;'), { catalog: null, db: 'my db' });
    assert.deepEqual(parseUse('USE paimon.sales'), { catalog: 'paimon', db: 'sales' });
    assert.equal(parseUse('USE a.b.c'), null);
    assert.equal(parseUse('USE sales; SELECT 1'), null);
    assert.equal(parseUse("USE 'sales'"), null);
    assert.equal(parseUse('USER sales'), null);
  });

  test('SWITCH reads one catalog name', () => {
    assert.equal(parseSwitch('switch lake;'), 'lake');
    assert.equal(parseSwitch('SWITCH'), null);
    assert.equal(parseSwitch('SWITCH a.b'), null);
  });

  test('KILL reads the mode and a numeric id of any size; a quoted query id is not one', () => {
    assert.deepEqual(parseKill('KILL 5'), { target: 5n, mode: 'connection' });
    assert.deepEqual(parseKill('kill connection 0x10'), { target: 16n, mode: 'connection' });
    assert.deepEqual(parseKill('KILL QUERY 99999999999'), { target: 99999999999n, mode: 'query' });
    assert.equal(parseKill("KILL QUERY 'a1b2'"), null);
    assert.equal(parseKill('KILL 1.5'), null);
    assert.equal(parseKill('KILL 3 4'), null);
  });

  test('SET reads user and system assignments with their scope and values as written', () => {
    const set = parseSet("SET @paimon_call_timeout := '10m', SESSION sql_mode = 'ANSI', @@global.x = -3, @b = NULL, y = ON, z = @@version");
    assert.ok(set !== null && set.kind === 'assignments');
    assert.deepEqual(set.items, [
      { kind: 'variable', user: true, name: 'paimon_call_timeout', scope: 'session', scopeKeyword: false, value: { kind: 'string', value: '10m' } },
      { kind: 'variable', user: false, name: 'sql_mode', scope: 'session', scopeKeyword: true, value: { kind: 'string', value: 'ANSI' } },
      { kind: 'variable', user: false, name: 'x', scope: 'global', scopeKeyword: false, value: { kind: 'number', text: '-3' } },
      { kind: 'variable', user: true, name: 'b', scope: 'session', scopeKeyword: false, value: { kind: 'null' } },
      { kind: 'variable', user: false, name: 'y', scope: 'session', scopeKeyword: false, value: { kind: 'word', text: 'ON' } },
      { kind: 'variable', user: false, name: 'z', scope: 'session', scopeKeyword: false, value: { kind: 'system', name: 'version', scope: 'session' } },
    ]);
  });

  test('SET NAMES, CHARACTER SET and TRANSACTION forms', () => {
    assert.deepEqual(parseSet('SET NAMES utf8mb4 COLLATE utf8mb4_bin'), { kind: 'names', charset: { kind: 'word', text: 'utf8mb4' }, collation: { kind: 'word', text: 'utf8mb4_bin' } });
    assert.deepEqual(parseSet("SET CHARACTER SET 'latin1'"), { kind: 'charset', charset: { kind: 'string', value: 'latin1' } });
    assert.deepEqual(parseSet('set global transaction isolation level read committed'), {
      kind: 'assignments',
      items: [{ kind: 'transaction', scope: 'global', words: 'ISOLATION LEVEL READ COMMITTED' }],
    });
  });

  test('SET that does not parse is null', () => {
    assert.equal(parseSet('SET'), null);
    assert.equal(parseSet("SET @a = -'x'"), null);
    assert.equal(parseSet('SET @a = 1 2'), null);
    assert.equal(parseSet('SET @a 1'), null);
  });

  test('literalValue gives what the FE stores for a literal, and nothing for words and variables', () => {
    assert.equal(literalValue({ kind: 'string', value: 'x' }), 'x');
    assert.equal(literalValue({ kind: 'number', text: '-1.5' }), '-1.5');
    assert.equal(literalValue({ kind: 'null' }), null);
    assert.equal(literalValue({ kind: 'word', text: '1' }), undefined);
    assert.equal(literalValue({ kind: 'system', name: 'a', scope: 'session' }), undefined);
  });

  test('SHOW reads what it lists, FROM and the LIKE or WHERE filter', () => {
    assert.deepEqual(parseShow("SHOW GLOBAL VARIABLES LIKE 'ver%'"), { scope: 'global', full: false, what: 'VARIABLES', filter: { kind: 'like', pattern: 'ver%' } });
    assert.deepEqual(parseShow('SHOW FULL TABLES FROM paimon.sales'), { scope: 'session', full: true, what: 'TABLES', from: { catalog: 'paimon', db: 'sales' }, filter: null });
    assert.deepEqual(parseShow("show schemas in lake where `Database` = 'a' or Database in ('b', 'c')"), {
      scope: 'session',
      full: false,
      what: 'DATABASES',
      from: 'lake',
      filter: {
        kind: 'where',
        predicates: [
          { column: 'Database', op: 'equals', value: 'a' },
          { column: 'Database', op: 'in', values: ['b', 'c'] },
        ],
      },
    });
    assert.deepEqual(parseShow('SHOW CHARACTER SET'), { scope: 'session', full: false, what: 'CHARSET', filter: null });
    assert.deepEqual(parseShow('SHOW COUNT(*) WARNINGS'), { scope: 'session', full: false, what: 'COUNT', of: 'WARNINGS' });
    assert.deepEqual(parseShow('SHOW WARNINGS LIMIT 10'), { scope: 'session', full: false, what: 'WARNINGS' });
  });

  test('SHOW of something else, or with a filter that does not parse, is null', () => {
    assert.equal(parseShow('SHOW CREATE DATABASE d'), null);
    assert.equal(parseShow('SHOW COLUMNS t'), null);
    assert.equal(parseShow('SHOW COUNT WARNINGS'), null);
    assert.equal(parseShow("SHOW DATABASES WHERE Database > 'a'"), null);
    assert.equal(parseShow('SHOW ENGINES x'), null);
  });

  test('SHOW WARNINGS and SHOW ERRORS are recognised behind comments', () => {
    assert.ok(isShowDiagnostics('/* x */ show warnings'));
    assert.ok(isShowDiagnostics('SHOW COUNT(*) ERRORS'));
    assert.equal(isShowDiagnostics('SHOW VARIABLES'), false);
  });

  test("the table-describing SHOWs take t, db.t or catalog.db.t, a FROM db after it, and a filter (Connector/J's forms)", () => {
    const head = { scope: 'session', full: true };
    assert.deepEqual(parseShow("SHOW FULL COLUMNS FROM `orders` FROM `sales` LIKE '%'"), {
      ...head,
      what: 'COLUMNS',
      table: { catalog: null, db: 'sales', table: 'orders' },
      filter: { kind: 'like', pattern: '%' },
    });
    assert.deepEqual(parseShow('SHOW FIELDS IN paimon.sales.orders'), {
      ...head,
      full: false,
      what: 'COLUMNS',
      table: { catalog: 'paimon', db: 'sales', table: 'orders' },
      filter: null,
    });
    assert.deepEqual(parseShow('SHOW KEYS FROM `orders` FROM paimon.sales'), {
      ...head,
      full: false,
      what: 'INDEX',
      table: { catalog: 'paimon', db: 'sales', table: 'orders' },
      filter: null,
    });
    assert.equal((parseShow("SHOW INDEXES FROM t WHERE Key_name = 'PRIMARY'") as { what: string }).what, 'INDEX');
    assert.deepEqual(parseShow('SHOW CREATE TABLE sales.`orders$snapshots`'), { ...head, full: false, what: 'CREATE TABLE', table: { catalog: null, db: 'sales', table: 'orders$snapshots' } });
    assert.deepEqual(parseShow("SHOW TABLE STATUS FROM sales LIKE 'o%'"), {
      ...head,
      full: false,
      what: 'TABLE STATUS',
      from: { catalog: null, db: 'sales' },
      filter: { kind: 'like', pattern: 'o%' },
    });
    assert.equal(parseShow('SHOW TABLE orders'), null);
    assert.equal(parseShow('SHOW COLUMNS FROM a.b.c.d'), null);
  });

  test('DESC and DESCRIBE read a table name', () => {
    assert.deepEqual(parseDescribe('desc sales.orders'), { catalog: null, db: 'sales', table: 'orders' });
    assert.deepEqual(parseDescribe('/* x */ DESCRIBE `orders`;'), { catalog: null, db: null, table: 'orders' });
    assert.equal(parseDescribe('DESCRIBE SELECT 1'), null);
    assert.equal(parseDescribe('DESC'), null);
  });
});
