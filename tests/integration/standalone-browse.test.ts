/**
 * Standalone mode can be browsed: over Paimon Java 2.0.0's create-matrix tables (`types`: every
 * primitive type; `history`: a primary key on a NOT NULL column; `nested`), Connector/J's
 * DatabaseMetaData (getCatalogs/getSchemas/getTables/getColumns/getPrimaryKeys, with its default
 * SHOW-based metadata and with useInformationSchema=true, and an information_schema query
 * through a PreparedStatement with useServerPrepStmts=true), mysql2 (information_schema, SHOW COLUMNS / KEYS / CREATE TABLE, a system table) and the
 * mariadb CLI see the Paimon schema: the names, order and nullability of Paimon's fields (from Java's
 * own dump), the primary key, and the types as Doris maps Paimon types (PaimonUtil.paimonTypeToDorisType).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { tempDir } from '../support/temp-dir.js';
import { MATRIX_DB, java, matrixWarehouse, type JsonObj, type TableDump } from '../interop/peers.js';
import { run } from './wire-helpers.js';

/** Doris's column type of each field of the matrix table `types` (what DESC prints for it). */
const DORIS_TYPES: Record<string, string> = {
  id: 'int',
  c_boolean: 'boolean',
  c_tinyint: 'tinyint',
  c_smallint: 'smallint',
  c_int: 'int',
  c_bigint: 'bigint',
  c_float: 'float',
  c_double: 'double',
  c_decimal_5_2: 'decimal(5,2)',
  c_decimal_18_4: 'decimal(18,4)',
  c_decimal_38_10: 'decimal(38,10)',
  c_char: 'char(5)',
  c_varchar: 'varchar(20)',
  c_string: 'text',
  c_binary: 'text',
  c_varbinary: 'text',
  c_bytes: 'text',
  c_date: 'date',
  c_time: 'unsupported',
  c_time3: 'unsupported',
  c_ts3: 'datetime(3)',
  c_ts6: 'datetime(6)',
  c_ts9: 'datetime(6)',
  c_ltz3: 'datetime(3)',
  c_ltz6: 'datetime(6)',
};

interface PaimonField {
  name: string;
  nullable: boolean;
}

/** The latest schema's fields as Paimon Java dumps them. */
function fieldsOf(dump: TableDump): PaimonField[] {
  const schema = dump.schemas[dump.schemas.length - 1]! as JsonObj;
  return (schema['fields'] as JsonObj[]).map((f) => {
    const t = f['type'];
    const text = typeof t === 'string' ? t : String((t as JsonObj)['type']);
    return { name: String(f['name']), nullable: !text.endsWith('NOT NULL') };
  });
}

describe('standalone browsing of Paimon Java tables', () => {
  let proxy: RunningProxy;
  let port: number;
  const dumps = new Map<string, TableDump>();

  before(async () => {
    const wh = await matrixWarehouse('2.0');
    for (const t of ['types', 'history', 'nested']) dumps.set(t, await java('2.0').dump(wh, MATRIX_DB, t));
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }],
      logging: { level: 'silent' },
      jobs: { dir: tempDir('browse-jobs') },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
    port = proxy.address.port;
  });
  after(async () => {
    await proxy?.close();
  });

  test('the matrix tables are what this test expects of them', () => {
    assert.deepEqual(fieldsOf(dumps.get('types')!).map((f) => f.name), Object.keys(DORIS_TYPES));
    assert.deepEqual(dumps.get('history')!.primaryKeys, ['id']);
    assert.deepEqual(fieldsOf(dumps.get('history')!), [
      { name: 'id', nullable: false },
      { name: 'v', nullable: true },
    ]);
  });

  async function probe(urlOptions: string): Promise<Record<string, unknown>> {
    const jar = process.env.CONNECTOR_J_JAR ?? new URL('./jdbc/lib/mysql-connector-j-8.4.0.jar', import.meta.url).pathname;
    if (!existsSync(jar)) throw new Error(`Connector/J not found at ${jar}: run through tests/run.sh (tests/setup/mariadb.sh fetches it)`);
    const src = new URL('./jdbc/MetaDataProbe.java', import.meta.url).pathname;
    const url = `jdbc:mysql://127.0.0.1:${port}/${MATRIX_DB}?sslMode=DISABLED&connectTimeout=20000&${urlOptions}`;
    const r = await run('java', ['-cp', jar, src, url, 'root', '', MATRIX_DB, 'types', 'history', 'nested'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  }

  function assertJdbcView(md: Record<string, unknown>, mode: string): void {
    assert.ok((md['catalogs'] as string[]).includes(MATRIX_DB), `${mode}: catalogs ${JSON.stringify(md['catalogs'])}`);
    assert.deepEqual(md['schemas'], [], `${mode}: databaseTerm=CATALOG has no schemas`);
    const tables = md['tables'] as { TABLE_CAT: string; TABLE_NAME: string; TABLE_TYPE: string }[];
    for (const t of ['types', 'history', 'nested']) {
      assert.ok(tables.some((x) => x.TABLE_NAME === t && x.TABLE_CAT === MATRIX_DB && x.TABLE_TYPE === 'TABLE'), `${mode}: table ${t} in ${JSON.stringify(tables)}`);
    }
    const columns = md['columns'] as Record<string, { COLUMN_NAME: string; IS_NULLABLE: string; ORDINAL_POSITION: string; TYPE_NAME: string }[]>;
    for (const t of ['types', 'history', 'nested']) {
      const expected = fieldsOf(dumps.get(t)!);
      assert.deepEqual(
        columns[t]!.map((c) => [c.COLUMN_NAME, c.IS_NULLABLE, c.ORDINAL_POSITION]),
        expected.map((f, i) => [f.name, f.nullable ? 'YES' : 'NO', String(i + 1)]),
        `${mode}: columns of ${t}`,
      );
    }
    // Connector/J names the MySQL type it reads from the column type Doris would report.
    const typeName = Object.fromEntries(columns['types']!.map((c) => [c.COLUMN_NAME, c.TYPE_NAME]));
    assert.equal(typeName['c_decimal_18_4'], 'DECIMAL', mode);
    assert.equal(typeName['c_varchar'], 'VARCHAR', mode);
    assert.equal(typeName['c_string'], 'TEXT', mode);
    assert.equal(typeName['c_ts6'], 'DATETIME', mode);
    assert.equal(typeName['c_bigint'], 'BIGINT', mode);
    const pks = md['primaryKeys'] as Record<string, { COLUMN_NAME: string; KEY_SEQ: string; PK_NAME: string }[]>;
    assert.deepEqual(pks['history'], [{ COLUMN_NAME: 'id', KEY_SEQ: '1', PK_NAME: 'PRIMARY' }], mode);
    assert.deepEqual(pks['types'], [], mode);
    assert.deepEqual(md['prepared'], Object.keys(DORIS_TYPES), `${mode}: prepared information_schema query`);
  }

  test('Connector/J DatabaseMetaData sees the Paimon schema, from SHOW statements and from information_schema', async () => {
    // useInformationSchema=true: getTables/getColumns compute their columns with CASE, UPPER, LOCATE, IF and HAVING.
    const [shows, infoSchema] = await Promise.all([probe('useServerPrepStmts=true'), probe('useInformationSchema=true')]);
    assertJdbcView(shows, 'useInformationSchema=false');
    assertJdbcView(infoSchema, 'useInformationSchema=true');
  });

  test('mysql2 reads information_schema, SHOW COLUMNS / KEYS / CREATE TABLE and a system table', async () => {
    const mysql = (await import('mysql2/promise')).default;
    const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: MATRIX_DB, supportBigNumbers: true, bigNumberStrings: true });
    try {
      const [cols] = await c.query(
        `SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '${MATRIX_DB}' AND TABLE_NAME IN ('types', 'history') ORDER BY TABLE_NAME, ORDINAL_POSITION`,
      );
      const expected = [
        ...fieldsOf(dumps.get('history')!).map((f) => ({ COLUMN_NAME: f.name, COLUMN_TYPE: f.name === 'id' ? 'int' : 'text', IS_NULLABLE: f.nullable ? 'YES' : 'NO', COLUMN_KEY: f.name === 'id' ? 'PRI' : '' })),
        ...fieldsOf(dumps.get('types')!).map((f) => ({ COLUMN_NAME: f.name, COLUMN_TYPE: DORIS_TYPES[f.name], IS_NULLABLE: f.nullable ? 'YES' : 'NO', COLUMN_KEY: '' })),
      ];
      assert.deepEqual(cols, expected);

      const [full] = await c.query('SHOW FULL COLUMNS FROM types');
      assert.deepEqual(
        (full as { Field: string; Type: string; Null: string }[]).map((r) => [r.Field, r.Type, r.Null]),
        fieldsOf(dumps.get('types')!).map((f) => [f.name, DORIS_TYPES[f.name], f.nullable ? 'YES' : 'NO']),
      );
      const [keys] = await c.query(`SHOW KEYS FROM history FROM ${MATRIX_DB}`);
      assert.deepEqual((keys as { Key_name: string; Column_name: string; Seq_in_index: string }[]).map((k) => [k.Key_name, k.Column_name, k.Seq_in_index]), [['PRIMARY', 'id', '1']]);

      const [ddl] = await c.query('SHOW CREATE TABLE paimon.interop.history');
      const text = (ddl as Record<string, string>[])[0]!['Create Table']!;
      assert.match(text, /^CREATE TABLE `history` \(\n {2}`id` int NOT NULL,\n {2}`v` text NULL\n\) ENGINE=PAIMON_EXTERNAL_TABLE\nLOCATION '[^']+history'\nPROPERTIES \(\n {2}"path" = "[^"]+history",\n/);
      assert.match(text, /"bucket" = "1"/);

      const [snaps] = await c.query('SELECT snapshot_id, commit_kind FROM history$snapshots WHERE snapshot_id >= 4 ORDER BY snapshot_id DESC LIMIT 1');
      assert.deepEqual(snaps, [{ snapshot_id: String(dumps.get('history')!.latestSnapshotId), commit_kind: 'APPEND' }]);

      // $files over the wire: Paimon's column types (bucket INT, record_count BIGINT); a tag's state is older than the latest.
      const [files, fields] = await c.query('SELECT bucket, record_count, file_format FROM history$files ORDER BY file_path');
      assert.ok((files as unknown[]).length > 0);
      assert.deepEqual((fields as { name: string; columnType: number }[]).map((f) => [f.name, f.columnType]), [['bucket', 3], ['record_count', 8], ['file_format', 253]]);
      const [tagged] = await c.query("SELECT record_count FROM history$files FOR VERSION AS OF 't1'");
      const count = (rows: unknown) => (rows as { record_count: string }[]).reduce((n, r) => n + Number(r.record_count), 0);
      assert.ok(count(tagged) > 0 && count(tagged) < count(files), `t1 holds fewer rows (${count(tagged)}) than the latest (${count(files)})`);

      await assert.rejects(c.query('SELECT * FROM history'), (e: { errno?: number; message: string }) => e.errno === 1235 && /No Doris FE is configured/.test(e.message) && /history\$snapshots/.test(e.message));
      await assert.rejects(c.query('SELECT TABLE_NAME FROM information_schema.TABLES GROUP BY TABLE_NAME'), (e: { errno?: number; message: string }) => e.errno === 1235 && /GROUP BY is not supported/.test(e.message));
    } finally {
      await c.end();
    }
  });

  test('the mariadb CLI lists columns, tables and descriptions', async () => {
    const sql = [
      `SHOW COLUMNS FROM ${MATRIX_DB}.history`,
      `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${MATRIX_DB}' AND TABLE_NAME LIKE 'pk\\_%' ORDER BY TABLE_NAME LIMIT 2`,
      `DESC ${MATRIX_DB}.nested`,
    ].join('; ');
    const r = await run('mariadb', ['--no-defaults', '-h', '127.0.0.1', '-P', String(port), '-u', 'root', '--skip-ssl', '--batch', '-e', sql]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      [
        'Field\tType\tNull\tKey\tDefault\tExtra',
        'id\tint\tNO\tPRI\tNULL\t',
        'v\ttext\tYES\t\tNULL\t',
        'TABLE_NAME',
        'pk_agg',
        'pk_changelog_decoupled',
        'Field\tType\tNull\tKey\tDefault\tExtra',
        'id\tint\tYES\t\tNULL\t',
        'arr\tarray<int>\tYES\t\tNULL\t',
        'm\tmap<text,bigint>\tYES\t\tNULL\t',
        'r\tstruct<x:int,y:text>\tYES\t\tNULL\t',
        '',
      ].join('\n'),
    );
  });
});
