import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateSelect, parseSelectQuery, requiredValues, selectFromName } from '../../../../src/router/browse/select-query.js';
import type { VirtualTable } from '../../../../src/router/browse/virtual-table.js';
import { ProcedureError } from '../../../../procedures/framework/errors.js';

const TABLE: VirtualTable = {
  name: 'information_schema.COLUMNS',
  columns: [
    { name: 'TABLE_SCHEMA', type: 'string' },
    { name: 'TABLE_NAME', type: 'string' },
    { name: 'ORDINAL_POSITION', type: 'bigint' },
    { name: 'COLUMN_DEFAULT', type: 'string' },
  ],
  rows: [
    ['demo', 'orders', '1', null],
    ['demo', 'orders', '2', 'x'],
    ['demo', 'Items', '10', null],
    ['ops', 'events', '9', 'y'],
  ],
};

function run(sql: string): (string | null)[][] {
  return evaluateSelect(parseSelectQuery(sql), TABLE).rows;
}

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ProcedureError) return e.code;
    throw e;
  }
  throw new Error('expected an error');
}

describe('standalone SELECT over a virtual table', () => {
  test('the FROM name is found with one, two or three parts; a SELECT without a table has none', () => {
    assert.deepEqual(selectFromName('SELECT * FROM paimon.demo.`orders$snapshots` WHERE x = 1')?.name, { catalog: 'paimon', db: 'demo', table: 'orders$snapshots' });
    assert.deepEqual(selectFromName('/* c */ select a from information_schema.TABLES')?.name, { catalog: null, db: 'information_schema', table: 'TABLES' });
    assert.deepEqual(selectFromName('SELECT (SELECT 1) AS x FROM t')?.name, { catalog: null, db: null, table: 't' });
    assert.equal(selectFromName('SELECT @@version_comment LIMIT 1'), null);
    assert.equal(selectFromName('SELECT 1 FROM DUAL'), null);
    assert.equal(selectFromName('SHOW TABLES'), null);
  });

  test("FOR VERSION AS OF <snapshot id> | '<tag>' after the name is Doris's time travel, taken off before parsing", () => {
    const q = parseSelectQuery("SELECT file_path FROM paimon.demo.orders$files FOR VERSION AS OF 't1' WHERE level = 0 LIMIT 2");
    assert.deepEqual(q.from, { catalog: 'paimon', db: 'demo', table: 'orders$files', at: { kind: 'tag', name: 't1' } });
    assert.deepEqual(q.limit, { offset: 0, count: 2 });
    assert.deepEqual(selectFromName('SELECT * FROM orders$files for version as of 7')?.name.at, { kind: 'snapshot', id: 7 });
    assert.equal(code(() => parseSelectQuery('SELECT * FROM orders$files FOR TIME AS OF 7')), 'NOT_SUPPORTED');
    assert.equal(code(() => parseSelectQuery('SELECT * FROM orders$files FOR VERSION AS OF 0')), 'NOT_SUPPORTED');
    assert.equal(code(() => parseSelectQuery("SELECT * FROM orders$files FOR VERSION AS OF ''")), 'NOT_SUPPORTED');
  });

  test('a three-part name keeps its catalog and parses like a two-part one', () => {
    const q = parseSelectQuery("SELECT snapshot_id FROM paimon.demo.orders$snapshots WHERE snapshot_id >= 2 LIMIT 1");
    assert.deepEqual(q.from, { catalog: 'paimon', db: 'demo', table: 'orders$snapshots' });
    assert.deepEqual(q.limit, { offset: 0, count: 1 });
  });

  test('=, <>, ranges, LIKE, IN, IS NULL, NOT, AND and OR filter as MySQL does', () => {
    assert.deepEqual(run("SELECT TABLE_NAME FROM t WHERE TABLE_SCHEMA = 'demo' AND ORDINAL_POSITION > 1"), [['orders'], ['Items']]);
    // numbers compare as numbers: '10' > '9'
    assert.deepEqual(run('SELECT ORDINAL_POSITION FROM t WHERE ORDINAL_POSITION >= 9'), [['10'], ['9']]);
    assert.deepEqual(run("SELECT TABLE_NAME FROM t WHERE TABLE_NAME LIKE 'o%' OR TABLE_SCHEMA IN ('ops')"), [['orders'], ['orders'], ['events']]);
    // strings compare case-sensitively, as in Doris
    assert.deepEqual(run("SELECT TABLE_NAME FROM t WHERE TABLE_NAME = 'items' OR TABLE_NAME LIKE 'i%'"), []);
    assert.deepEqual(run('SELECT ORDINAL_POSITION FROM t WHERE COLUMN_DEFAULT IS NULL'), [['1'], ['10']]);
    assert.deepEqual(run('SELECT ORDINAL_POSITION FROM t WHERE COLUMN_DEFAULT IS NOT NULL AND NOT (ORDINAL_POSITION = 2)'), [['9']]);
    // NULL compares as unknown: neither = nor <> matches it
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE COLUMN_DEFAULT <> 'x'"), [['9']]);
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE TABLE_NAME NOT IN ('orders', 'events')"), [['10']]);
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE 'demo' = TABLE_SCHEMA AND 2 > ORDINAL_POSITION"), [['1']]);
  });

  test('AND binds tighter than OR, inside parentheses too, as in MySQL', () => {
    const orOfAnd = [['1'], ['2'], ['9']];
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE TABLE_SCHEMA = 'ops' OR TABLE_NAME = 'orders' AND ORDINAL_POSITION < 5"), orOfAnd);
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE (TABLE_SCHEMA = 'ops' OR TABLE_NAME = 'orders' AND ORDINAL_POSITION < 5)"), orOfAnd);
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE TABLE_NAME = 'orders' AND ORDINAL_POSITION < 5 OR TABLE_SCHEMA = 'ops'"), orOfAnd);
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE TABLE_SCHEMA = 'ops' AND TABLE_NAME IN ('events') OR ORDINAL_POSITION = 1"), [['1'], ['9']]);
    assert.deepEqual(run("SELECT ORDINAL_POSITION FROM t WHERE (TABLE_SCHEMA = 'ops' OR TABLE_NAME = 'orders') AND ORDINAL_POSITION < 5"), [['1'], ['2']]);
    assert.equal(requiredValues(parseSelectQuery("SELECT * FROM t WHERE TABLE_SCHEMA = 'a' OR TABLE_NAME = 'x' AND TABLE_SCHEMA = 'b'").where, 'TABLE_SCHEMA'), null);
  });
  test('ORDER BY a column, an alias or a position, then LIMIT and OFFSET; columns are renamed by their alias', () => {
    const r = evaluateSelect(parseSelectQuery('SELECT c.TABLE_NAME AS n, ORDINAL_POSITION FROM information_schema.COLUMNS c ORDER BY ORDINAL_POSITION DESC LIMIT 1, 2'), TABLE);
    assert.deepEqual(r.columns, [{ name: 'n', type: 'string' }, { name: 'ORDINAL_POSITION', type: 'bigint' }]);
    assert.deepEqual(r.rows, [['events', '9'], ['orders', '2']]);
    assert.deepEqual(run('SELECT TABLE_NAME AS n FROM t ORDER BY n LIMIT 2 OFFSET 1'), [['events'], ['orders']]);
    assert.deepEqual(run('SELECT TABLE_NAME, ORDINAL_POSITION FROM t ORDER BY 2 LIMIT 1'), [['orders', '1']]);
    // NULL first ascending
    assert.deepEqual(run('SELECT COLUMN_DEFAULT FROM t ORDER BY COLUMN_DEFAULT'), [[null], [null], ['x'], ['y']]);
  });

  test('SELECT * keeps the table columns; column names match case-insensitively', () => {
    const r = evaluateSelect(parseSelectQuery("select * from t where table_schema = 'ops'"), TABLE);
    assert.deepEqual(r.columns.map((c) => c.name), ['TABLE_SCHEMA', 'TABLE_NAME', 'ORDINAL_POSITION', 'COLUMN_DEFAULT']);
    assert.deepEqual(r.rows, [['ops', 'events', '9', 'y']]);
  });

  test('what the WHERE requires of a column (for reading only the tables asked for)', () => {
    const w = (sql: string) => parseSelectQuery(sql).where;
    assert.deepEqual(requiredValues(w("SELECT * FROM t WHERE TABLE_SCHEMA = 'a' AND TABLE_NAME IN ('x', 'y')"), 'table_schema'), ['a']);
    assert.deepEqual(requiredValues(w("SELECT * FROM t WHERE TABLE_SCHEMA = 'a' AND TABLE_NAME IN ('x', 'y')"), 'TABLE_NAME'), ['x', 'y']);
    assert.equal(requiredValues(w("SELECT * FROM t WHERE TABLE_SCHEMA = 'a' OR TABLE_NAME = 'x'"), 'TABLE_SCHEMA'), null);
    assert.equal(requiredValues(w("SELECT * FROM t WHERE TABLE_SCHEMA LIKE 'a%'"), 'TABLE_SCHEMA'), null);
    assert.deepEqual(requiredValues(w("SELECT * FROM t WHERE TABLE_SCHEMA = 'a' AND TABLE_SCHEMA = 'b'"), 'TABLE_SCHEMA'), []);
  });

  test('anything else is NOT_SUPPORTED (joins, grouping, aggregates, other functions, subqueries); unknown columns are COLUMN_NOT_FOUND', () => {
    for (const sql of [
      'SELECT COUNT(*) FROM t',
      'SELECT DISTINCT TABLE_NAME FROM t',
      'SELECT TABLE_NAME FROM t GROUP BY TABLE_NAME',
      'SELECT * FROM t a JOIN u b ON a.x = b.x',
      'SELECT * FROM t WHERE TABLE_NAME = (SELECT 1)',
      'SELECT * FROM t WHERE SUBSTRING(TABLE_NAME, 1) = 1',
      'SELECT MAX(ORDINAL_POSITION) FROM t',
      'SELECT * FROM t UNION SELECT * FROM u',
      'SELECT * FROM t; SELECT 1',
      'SELECT * FROM a.b.c.d',
    ]) {
      assert.equal(code(() => evaluateSelect(parseSelectQuery(sql), TABLE)), 'NOT_SUPPORTED', sql);
    }
    assert.equal(code(() => run('SELECT nope FROM t')), 'COLUMN_NOT_FOUND');
    assert.equal(code(() => run('SELECT * FROM t WHERE nope = 1')), 'COLUMN_NOT_FOUND');
    assert.equal(code(() => run('SELECT x.TABLE_NAME FROM t')), 'COLUMN_NOT_FOUND');
    assert.equal(code(() => run('SELECT * FROM t WHERE')), 'PARSE_ERROR');
  });
});

describe('constants in the select list', () => {
  test("Connector/J's getPrimaryKeys query (information_schema mode) is answered", () => {
    const r = evaluateSelect(
      parseSelectQuery(
        "SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, ORDINAL_POSITION AS KEY_SEQ, 'PRIMARY' AS PK_NAME, 0 AS PAGES FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'ops' AND TABLE_NAME = 'events' ORDER BY TABLE_SCHEMA, TABLE_NAME, KEY_SEQ",
      ),
      TABLE,
    );
    assert.deepEqual(r.columns, [
      { name: 'TABLE_CAT', type: 'string' },
      { name: 'TABLE_SCHEM', type: 'string' },
      { name: 'TABLE_NAME', type: 'string' },
      { name: 'KEY_SEQ', type: 'bigint' },
      { name: 'PK_NAME', type: 'string' },
      { name: 'PAGES', type: 'bigint' },
    ]);
    assert.deepEqual(r.rows, [['ops', null, 'events', '9', 'PRIMARY', '0']]);
  });
});

describe('expressions (what Connector/J computes in its information_schema queries)', () => {
  test('CASE, UPPER, LOCATE, CONCAT, IF, arithmetic and column-to-column comparisons', () => {
    const r = evaluateSelect(
      parseSelectQuery(
        "SELECT UPPER(CASE WHEN LOCATE('rd', TABLE_NAME) != 0 THEN CONCAT(TABLE_NAME, ' x') ELSE TABLE_SCHEMA END) AS U, " +
          "19 + (CASE WHEN ORDINAL_POSITION > 1 THEN ORDINAL_POSITION + 1 ELSE ORDINAL_POSITION END) AS N, " +
          "IF (COLUMN_DEFAULT LIKE 'x%', 'YES', 'NO') AS D, CASE TABLE_SCHEMA WHEN 'ops' THEN 1 ELSE 0 END AS O " +
          'FROM t WHERE UPPER(TABLE_NAME) <> TABLE_NAME ORDER BY N',
      ),
      TABLE,
    );
    assert.deepEqual(r.columns, [
      { name: 'U', type: 'string' },
      { name: 'N', type: 'bigint' },
      { name: 'D', type: 'string' },
      { name: 'O', type: 'bigint' },
    ]);
    assert.deepEqual(r.rows, [
      ['ORDERS X', '20', 'NO', '0'],
      ['ORDERS X', '22', 'YES', '0'],
      ['OPS', '29', 'NO', '1'],
      ['DEMO', '30', 'NO', '0'],
    ]);
  });

  test("Connector/J's getTables shape: a CASE aliased over a column, HAVING and ORDER BY on the alias", () => {
    const tables: VirtualTable = {
      name: 'information_schema.TABLES',
      columns: [
        { name: 'TABLE_SCHEMA', type: 'string' },
        { name: 'TABLE_NAME', type: 'string' },
        { name: 'TABLE_TYPE', type: 'string' },
      ],
      rows: [
        ['demo', 'b', 'BASE TABLE'],
        ['demo', 'a', 'VIEW'],
        ['mysql', 'user', 'BASE TABLE'],
      ],
    };
    const sql =
      "SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, CASE WHEN TABLE_TYPE='BASE TABLE' THEN CASE WHEN TABLE_SCHEMA = 'mysql' OR TABLE_SCHEMA = 'performance_schema' THEN 'SYSTEM TABLE' " +
      "ELSE 'TABLE' END WHEN TABLE_TYPE='TEMPORARY' THEN 'LOCAL_TEMPORARY' ELSE TABLE_TYPE END AS TABLE_TYPE, NULL AS REF_GENERATION FROM INFORMATION_SCHEMA.TABLES " +
      "WHERE TABLE_SCHEMA LIKE '%' AND TABLE_NAME LIKE '%' HAVING TABLE_TYPE IN (NULL,'TABLE','VIEW',NULL,NULL) ORDER BY TABLE_TYPE, TABLE_SCHEMA, TABLE_NAME";
    assert.deepEqual(evaluateSelect(parseSelectQuery(sql), tables).rows, [
      ['demo', null, 'b', 'TABLE', null],
      ['demo', null, 'a', 'VIEW', null],
    ]);
  });
});
