/**
 * The `$files` system table standalone mode answers equals Paimon Java's own `$files`
 * (FilesTable, read by SysTableTool, one JVM per version) on tables Paimon 1.4.2 and 2.0.0 built
 * (the create-matrix): partitioned primary-key and append tables (NULL and DATE partition
 * values), deletion vectors, a table whose files span four schemas (stats evolved to the current
 * fields), every primitive type, a branch (`t$branch_b1$files`) and a tag (`scan.tag-name` on
 * Java's side, `FOR VERSION AS OF 't3'` through the SELECT path on ours): the same columns and
 * types, and row for row the same values, rows matched by file_path.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { parseObjectName } from '../../src/paimon/catalog/identifier.js';
import { systemTable } from '../../src/router/browse/system-tables.js';
import { answerSelect } from '../../src/router/browse/browse-select.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import type { ColumnType, LocalReply } from '../../src/router/route.js';
import { MATRIX_DB, PAIMON_JAVA_VERSIONS, java, matrixWarehouse, parseJson } from './peers.js';

/** Partitioned PK, partitioned append (NULL/DATE partitions), bucketed append, DV, four schemas, every type, a branch. */
const TABLES = ['pk_dedup', 'append_part', 'append_unpart', 'append_fixed', 'pk_dv', 'schema_evo', 'types', 'history', 'history$branch_b1'];
const TAG = 't3';

interface JavaSysTable {
  columns: { name: string; type: string }[];
  rows: (string | null)[][];
}

function expectedType(paimonType: string): ColumnType {
  const root = paimonType.replace(/ NOT NULL$/, '');
  if (root === 'BIGINT') return 'bigint';
  if (root === 'INT') return 'int';
  if (root === 'STRING' || root === 'ARRAY<STRING>') return 'string';
  if (root === 'TIMESTAMP(3)') return 'datetime';
  throw new Error(`unexpected $files column type ${paimonType}`);
}

const PATH = 2;
/** file_path below the warehouse (Java may print a `file:` scheme). */
function relPath(p: string | null): string {
  const i = p!.indexOf(`${MATRIX_DB}.db/`);
  assert.ok(i >= 0, `file path ${p} under ${MATRIX_DB}.db`);
  return p!.slice(i);
}

/**
 * Rows keyed and sorted by file_path, paths made relative. Java prints a BINARY stats value as an
 * object identity (`[B@1b2c3d`, different on every read), ours as hex: both become `<bytes>`.
 */
function normalize(rows: (string | null)[][], binaryValue: RegExp): (string | null)[][] {
  return rows
    .map((r) => r.map((v, i) => (i === PATH ? relPath(v) : v === null ? null : v.replace(binaryValue, '=<bytes>'))))
    .sort((a, b) => (a[PATH]! < b[PATH]! ? -1 : a[PATH]! > b[PATH]! ? 1 : 0));
}
const JAVA_BYTES = /=\[B@[0-9a-f]+(?=[,}])/g;
const OUR_BYTES = /=0x[0-9a-f]*(?=[,}])/g;

function resultRows(reply: LocalReply): (string | null)[][] {
  assert.equal(reply.kind, 'resultset', JSON.stringify(reply).slice(0, 300));
  return reply.kind === 'resultset' ? reply.rows.map((r) => r.map((v) => (v === null ? null : String(v)))) : [];
}

for (const version of PAIMON_JAVA_VERSIONS) {
  describe(`$files vs Paimon Java ${version}`, () => {
    let wh: string;
    let javaTables: Record<string, Record<string, JavaSysTable>>;
    before(async () => {
      wh = await matrixWarehouse(version);
      const r = await java(version).runMain('SysTableTool', ['read', wh, MATRIX_DB, ...TABLES.map((t) => `${t}=files`), `history@${TAG}=files`], { timeoutMs: 180_000 });
      javaTables = parseJson(r.stdout.trim()) as unknown as Record<string, Record<string, JavaSysTable>>;
    });

    for (const table of TABLES) {
      test(`${table}$files: Paimon's columns, types and rows`, async () => {
        const catalog = new FileSystemCatalog(wh, new LocalFileIO(), 'paimon');
        const t = await catalog.getTable(parseObjectName(MATRIX_DB, table));
        const expected = javaTables[table]!['files']!;
        const ours = await systemTable(t, 'files');
        assert.deepEqual(ours.columns, expected.columns.map((c) => ({ name: c.name, type: expectedType(c.type) })), 'columns');
        assert.ok(expected.rows.length > 0, `${table} has live files`);
        assert.deepEqual(normalize(ours.rows, OUR_BYTES), normalize(expected.rows, JAVA_BYTES));
      });
    }

    test("a tag through the SELECT path (FOR VERSION AS OF 't3') and a snapshot id; WHERE and LIMIT on $files", async () => {
      const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]);
      const ctx = { catalogs, currentCatalog: 'paimon', currentDatabase: MATRIX_DB };
      const expected = javaTables[`history@${TAG}`]!['files']!;
      const tagged = resultRows(await answerSelect(`SELECT * FROM paimon.${MATRIX_DB}.history$files FOR VERSION AS OF '${TAG}'`, ctx));
      assert.deepEqual(normalize(tagged, OUR_BYTES), normalize(expected.rows, JAVA_BYTES));
      const latest = javaTables['history']!['files']!.rows;
      assert.notDeepEqual(normalize(tagged, OUR_BYTES), normalize(latest, JAVA_BYTES), 'the tag is an older state than the latest');
      // t3 is snapshot 3 of history: the same rows by snapshot id.
      const bySnapshot = resultRows(await answerSelect(`SELECT * FROM history$files FOR VERSION AS OF 3 WHERE level >= 0`, ctx));
      assert.deepEqual(bySnapshot, tagged);
      const one = resultRows(await answerSelect(`SELECT file_path, record_count FROM history$files WHERE bucket = 0 AND level = 0 LIMIT 1`, ctx));
      assert.equal(one.length, 1);
      const missing = await answerSelect(`SELECT * FROM history$files FOR VERSION AS OF 'nope'`, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      assert.match(String((missing as { code?: string } | null)?.code), /TAG_NOT_FOUND/);
      const refused = await answerSelect(`SELECT * FROM history$snapshots FOR VERSION AS OF 3`, ctx).then(
        () => null,
        (e: unknown) => e,
      );
      assert.match(String((refused as { code?: string } | null)?.code), /NOT_SUPPORTED/);
    });

    test('the tables exercise what $files renders: partitions with NULL, evolved stats, DV delete counts, PK keys', () => {
      const rows = (t: string) => javaTables[t]!['files']!.rows;
      assert.ok(rows('append_part').some((r) => /null/.test(r[0] ?? '')), 'a NULL partition value');
      assert.ok(rows('pk_dedup').every((r) => r[8] !== null), 'PK files have a min_key');
      assert.ok(rows('append_unpart').every((r) => r[0] === '{}' && r[8] === null), 'unpartitioned append: {} and no key');
      assert.ok(new Set(rows('schema_evo').map((r) => r[4])).size > 1, 'files of several schemas');
      assert.ok(rows('pk_dv').some((r) => r[16] !== null), 'deleteRowCount recorded');
    });
  });
}
