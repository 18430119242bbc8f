/**
 * The system tables standalone mode answers ($snapshots, $tags, $branches, $consumers, $schemas,
 * $options) equal Paimon Java's own system tables on the same tables of the create-matrix
 * (Paimon 1.4.2 and 2.0.0; read by `SysTableTool`, one JVM per version): the same column names
 * in the same order, the column types as MySQL types of Paimon's (BIGINT, STRING, TIMESTAMP(3)),
 * and the same values rendered as Paimon renders them (local date-times with milliseconds,
 * Duration strings, flat JSON, options in HashMap order), in Paimon's row order where Paimon has one.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { parseObjectName } from '../../src/paimon/catalog/identifier.js';
import { systemTable } from '../../src/router/browse/system-tables.js';
import type { ColumnType } from '../../src/router/route.js';
import { MATRIX_DB, PAIMON_JAVA_VERSIONS, java, matrixWarehouse, parseJson } from './peers.js';

const NAMES = ['snapshots', 'tags', 'branches', 'consumers', 'schemas', 'options'];
/** Tables with snapshots, tags (with and without retention), branches, consumers, schema changes, changelogs. */
const TABLES = ['history', 'history$branch_b1', 'schema_evo', 'pk_changelog_input', 'types'];

interface JavaSysTable {
  columns: { name: string; type: string }[];
  rows: (string | null)[][];
}

/** The MySQL column type of a Paimon system-table column type. */
function expectedType(paimonType: string): ColumnType {
  const root = paimonType.replace(/ NOT NULL$/, '');
  if (root === 'BIGINT') return 'bigint';
  if (root === 'STRING') return 'string';
  if (root === 'TIMESTAMP(3)') return 'datetime';
  throw new Error(`unexpected system-table column type ${paimonType}`);
}

/**
 * Java lists these in the order of a directory listing or a HashMap (SchemaManager.listAll,
 * BranchManager.branches, ConsumerManager.consumers); ours are sorted (schemas by id, the
 * others by name). Compare them as sets of rows.
 */
const UNORDERED = new Set(['branches', 'consumers', 'schemas']);

for (const version of PAIMON_JAVA_VERSIONS) {
  describe(`system tables vs Paimon Java ${version}`, () => {
    let wh: string;
    let javaTables: Record<string, Record<string, JavaSysTable>>;
    before(async () => {
      wh = await matrixWarehouse(version);
      const r = await java(version).runMain('SysTableTool', ['read', wh, MATRIX_DB, ...TABLES.map((t) => `${t}=${NAMES.join(',')}`)], { timeoutMs: 180_000 });
      javaTables = parseJson(r.stdout.trim()) as unknown as Record<string, Record<string, JavaSysTable>>;
    });

    for (const table of TABLES) {
      test(`${table}: every system table has Paimon's columns, types and rows`, async () => {
        const catalog = new FileSystemCatalog(wh, new LocalFileIO(), 'paimon');
        const id = parseObjectName(MATRIX_DB, table);
        const t = await catalog.getTable(id);
        for (const name of NAMES) {
          const expected = javaTables[table]![name]!;
          const ours = await systemTable(t, name);
          // 1.4.2's $snapshots has no `operation` column (added in 2.0): ours has 2.0's columns.
          const extra = ours.columns.length - expected.columns.length;
          if (version === '1.4' && name === 'snapshots') assert.deepEqual(ours.columns.slice(-extra).map((c) => c.name), ['operation']);
          else assert.equal(extra, 0, `${table}$${name}: column count`);
          assert.deepEqual(
            ours.columns.slice(0, expected.columns.length),
            expected.columns.map((c) => ({ name: c.name, type: expectedType(c.type) })),
            `${table}$${name}: columns`,
          );
          let ourRows = ours.rows.map((r) => r.slice(0, expected.columns.length));
          let javaRows = expected.rows;
          if (UNORDERED.has(name)) {
            const key = (r: (string | null)[]): string => JSON.stringify(r);
            ourRows = ourRows.slice().sort((a, b) => key(a).localeCompare(key(b)));
            javaRows = javaRows.slice().sort((a, b) => key(a).localeCompare(key(b)));
          }
          assert.deepEqual(ourRows, javaRows, `${table}$${name}: rows`);
        }
      });
    }

    test('the history table really exercises tags with retention, branches, consumers and schema changes', () => {
      const h = javaTables['history']!;
      assert.ok(h['tags']!.rows.some((r) => r[6] === 'PT24H'), 'a tag retained one day');
      assert.ok(h['branches']!.rows.length >= 2);
      assert.ok(h['consumers']!.rows.length >= 2);
      assert.ok(javaTables['schema_evo']!['schemas']!.rows.length >= 4);
      assert.ok(javaTables['history$branch_b1']!['tags']!.rows.some((r) => r[0] === 'bt1'));
      assert.ok(javaTables['pk_changelog_input']!['snapshots']!.rows.some((r) => r[8] !== null), 'a changelog manifest list');
    });
  });
}
