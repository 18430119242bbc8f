/**
 * Compaction of tables with VARIANT columns as Paimon Java 2.0.0 writes them (unshredded: a
 * value/metadata group), top-level and inside ROW, ARRAY and MAP. On copies of Java-written
 * tables, Java's full compaction and ours: Java reads the same rows from both (variants compared
 * as the JSON text Paimon renders), the files keep Java's Parquet layout (names, types, field ids;
 * differences only where DuckDB cannot follow, see variant-parquet.ts) and Java's statistics, and
 * Java keeps writing and compacting on ours. pypaimon 2.1.0, which needs the variant parts
 * REQUIRED (DuckDB writes them OPTIONAL; our writer rewrites them, see parquet-required-parts.ts),
 * reads from our compacted files the rows it reads from Java's. Such tables are compacted by
 * default; with `procedures.compact_variant_tables` off, or a codec the rewrite cannot compress
 * pages with (lz4), they are refused before any work. A table whose variants Java shreds
 * (`variant.inferShreddingSchema`) is refused, naming the engine procedure.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { compact } from '../../procedures/compaction/compact.js';
import { java, pypaimon21, sharedDirectory, type JsonObj } from './peers.js';
import { callNamed, executorFor, javaAndOurCopies, javaBatch, ourCopy, tempDir } from './procedures-support.js';
import { liveFiles, type LiveFile } from './compact-support.js';

/** The proxy setting that leaves VARIANT tables to Paimon's engines. */
const VARIANT_OFF = { compact_variant_tables: false };
const DB = 'interop';
const J = java('2.0');
const run = promisify(execFile);

const VARIANT_FIELDS = [
  { name: 'j', type: 'VARIANT' },
  { name: 'r', type: { type: 'ROW', fields: [{ id: 100, name: 'k', type: 'INT' }, { id: 101, name: 'j', type: 'VARIANT' }] } },
  { name: 'arr', type: { type: 'ARRAY', element: 'VARIANT' } },
  { name: 'm', type: { type: 'MAP', key: 'STRING NOT NULL', value: 'VARIANT' } },
];

function schemaFile(dir: string, name: string, primaryKeys: string[], options: Record<string, string>): string {
  const p = join(dir, `${name}.schema.json`);
  writeFileSync(
    p,
    JSON.stringify({
      fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }, ...VARIANT_FIELDS],
      primaryKeys,
      partitionKeys: [],
      options: { 'write-only': 'true', ...options },
    }),
  );
  return p;
}

/** interop.sh: an append table whose variants Java shreds by an inferred schema. */
function shreddedSchemaFile(dir: string): string {
  const p = join(dir, 'sh.schema.json');
  writeFileSync(
    p,
    JSON.stringify({
      fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'j', type: 'VARIANT' }],
      primaryKeys: [],
      partitionKeys: [],
      options: { bucket: '-1', 'write-only': 'true', 'variant.inferShreddingSchema': 'true' },
    }),
  );
  return p;
}

/** Variant JSON texts of many shapes (objects, arrays, nesting, strings, numbers, decimals, JSON null), or SQL NULL. */
function variantText(i: number): string | null {
  switch (i % 10) {
    case 0: return JSON.stringify({ id: i, name: `n${i}`, tags: ['a', 'b', i], nested: { deep: { x: [1, { y: null }], z: 'é' } } });
    case 1: return `[${i}, "two", null, true, 1.50, {"k": "v${i}"}, [[]]]`;
    case 2: return JSON.stringify(`a long string ${i} ${'ü'.repeat(50)}`);
    case 3: return String(i * 1_000_003);
    case 4: return `12345678901234567890.${String(i % 1000).padStart(3, '0')}`;
    case 5: return `-1.5e${(i % 300) + 1}`;
    case 6: return 'null';
    case 7: return null;
    case 8: return `{"price": ${i}.99, "qty": 0, "ok": false, "empty": {}, "none": [], "neg": -${i}}`;
    default: return JSON.stringify('s' + String(i));
  }
}

function row(id: number, gen: number, kind?: string): JsonObj {
  const x = id * 7 + gen;
  return {
    id,
    v: `g${gen}`,
    j: variantText(x),
    r: x % 11 === 0 ? null : { k: x, j: variantText(x + 3) },
    arr: x % 13 === 0 ? null : [variantText(x + 1), variantText(x + 7), variantText(x + 2)],
    m: x % 17 === 0 ? null : [['a', variantText(x + 5)], ['b', variantText(x + 4)]],
    ...(kind ? { _rowKind: kind } : {}),
  };
}

async function variantWrite(wh: string, table: string, rows: JsonObj[]): Promise<void> {
  const f = join(tempDir('variant-rows-'), 'rows.jsonl');
  writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await J.runMain('VariantTool', ['write', wh, DB, table, f], { timeoutMs: 300_000 });
}

/** Rows as Paimon Java 2.0.0 reads them, variants as Paimon's JSON text, sorted. */
async function javaRows(wh: string, table: string): Promise<string[]> {
  const r = await J.runMain('VariantTool', ['read', wh, DB, table], { timeoutMs: 300_000 });
  return r.stdout.split('\n').filter((l) => l.trim() !== '');
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, k) => from + k);

/**
 * interop.pk: primary key id, 2 buckets; four commits over overlapping keys (0-29, 15-44, then
 * 0-4 deleted and 5-9 updated, 40-59). interop.ap: an append table (bucket -1), ten commits of
 * four rows. interop.sh: an append table whose variants (objects of one shape) Java shreds, one commit.
 */
async function warehouse(): Promise<string> {
  const dir = await sharedDirectory('compact-variant-2.0.0', async (staging) => {
    const wh = join(staging, 'wh');
    await javaBatch('2.0.0', [
      ['create-table', wh, DB, 'pk', schemaFile(staging, 'pk', ['id'], { bucket: '2' })],
      ['create-table', wh, DB, 'ap', schemaFile(staging, 'ap', [], { bucket: '-1' })],
      ['create-table', wh, DB, 'sh', shreddedSchemaFile(staging)],
    ]);
    await variantWrite(wh, 'pk', range(0, 30).map((id) => row(id, 0)));
    await variantWrite(wh, 'pk', range(15, 45).map((id) => row(id, 1)));
    await variantWrite(wh, 'pk', [...range(0, 5).map((id) => row(id, 2, '-D')), ...range(5, 10).map((id) => row(id, 2))]);
    await variantWrite(wh, 'pk', range(40, 60).map((id) => row(id, 3)));
    for (let c = 0; c < 10; c++) await variantWrite(wh, 'ap', range(c * 4, c * 4 + 4).map((id) => row(id, c)));
    await variantWrite(wh, 'sh', range(0, 40).map((id) => ({ id, j: JSON.stringify({ a: id, b: `s${id}` }) })));
  });
  return join(dir, 'wh');
}

function tableDir(wh: string, t: string): string {
  return join(wh, `${DB}.db`, t);
}

function checksums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e), r = rel ? `${rel}/${e}` : e;
      if (statSync(p).isDirectory()) walk(p, r);
      else out[r] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}

async function live(wh: string, t: string): Promise<LiveFile[]> {
  return liveFiles((await J.dump(wh, DB, t)) as unknown as JsonObj).sort((x, y) => x.bucket - y.bucket || x.fileName.localeCompare(y.fileName));
}

interface SchemaNode { name: string; type: string | null; repetition: string | null; fieldId: number | null; logical: string | null }

/** A Parquet file's schema elements (parquet_schema, in file order), the root dropped. */
async function parquetSchema(path: string): Promise<SchemaNode[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  try {
    const r = await c.runAndReadAll(`SELECT name, type, repetition_type, field_id, converted_type FROM parquet_schema('${path.replace(/'/g, "''")}')`);
    return r.getRowObjects().slice(1).map((o) => ({
      name: String(o.name),
      type: o.type === null ? null : String(o.type),
      repetition: o.repetition_type === null ? null : String(o.repetition_type),
      fieldId: o.field_id === null ? null : Number(o.field_id),
      logical: o.converted_type === null ? null : String(o.converted_type),
    }));
  } finally {
    c.closeSync();
    inst.closeSync();
  }
}

/**
 * Our file's layout against Java's, element by element: the same names, physical types, field ids,
 * annotations and, for the variant parts, repetition (REQUIRED), except where DuckDB cannot follow:
 * variant parts without ids, OPTIONAL where Java writes other columns REQUIRED, and two legacy
 * annotations (INT_32/INT_64, MAP_KEY_VALUE).
 */
function assertLayoutLikeJava(ours: SchemaNode[], javas: SchemaNode[], what: string): void {
  assert.equal(ours.length, javas.length, `${what}: as many schema elements as Java's`);
  let variantParts = 0;
  javas.forEach((j, i) => {
    const o = ours[i];
    const at = `${what}: element ${i} (${j.name})`;
    assert.equal(o.name, j.name, at);
    assert.equal(o.type, j.type, at);
    // DuckDB annotates plain INT32/INT64 (INT_32/INT_64), which Java leaves bare, and leaves a
    // map's key_value group bare, which Java marks MAP_KEY_VALUE (legacy; readers ignore it).
    const annotationOnlyDuckDB = j.logical === null && (o.logical === 'INT_32' || o.logical === 'INT_64');
    const annotationOnlyJava = j.logical === 'MAP_KEY_VALUE' && o.logical === null;
    if (!annotationOnlyDuckDB && !annotationOnlyJava) assert.equal(o.logical, j.logical, at);
    const isVariantPart = (j.name === 'value' || j.name === 'metadata') && j.type === 'BYTE_ARRAY' && j.fieldId === (j.name === 'value' ? 0 : 1);
    if (isVariantPart) {
      variantParts++;
      assert.equal(o.fieldId, null, at);
      assert.equal(j.repetition, 'REQUIRED', at);
      assert.equal(o.repetition, 'REQUIRED', at);
    } else assert.equal(o.fieldId, j.fieldId, at);
    if (j.repetition === 'REQUIRED') assert.ok(o.repetition === 'REQUIRED' || o.repetition === 'OPTIONAL', at);
    else assert.equal(o.repetition, j.repetition, at);
  });
  // j, r.j, arr's element and m's value: four variant groups of two parts each
  assert.equal(variantParts, 8, `${what}: every variant group found`);
}

/** What a compacted file's meta says beyond its name, size and time: stats, counts, sequence range, level. */
function metaFacts(f: LiveFile): JsonObj {
  const m = f.meta;
  return { bucket: f.bucket, level: f.level, rowCount: m.rowCount, minKey: m.minKey, maxKey: m.maxKey, keyStats: m.keyStats, valueStats: m.valueStats, valueStatsCols: m.valueStatsCols, minSequenceNumber: m.minSequenceNumber, maxSequenceNumber: m.maxSequenceNumber, deleteRowCount: m.deleteRowCount };
}

/** pypaimon 2.1.0's rows, each variant rendered from its parts by pypaimon's own GenericVariant. */
async function pyRows(wh: string, table: string): Promise<string[]> {
  const script = join(tempDir('variant-py-'), 'read.py');
  writeFileSync(
    script,
    [
      'import json, sys',
      'from pypaimon import CatalogFactory',
      'from pypaimon.data.generic_variant import GenericVariant',
      't = CatalogFactory.create({"warehouse": sys.argv[1]}).get_table(sys.argv[2])',
      'rb = t.new_read_builder()',
      'a = rb.new_read().to_arrow(rb.new_scan().plan().splits())',
      'def var(x):',
      '    return None if x is None else json.dumps(GenericVariant.from_arrow_struct(x).to_python(), default=str, sort_keys=True)',
      'def canon(r):',
      '    return {"id": r["id"], "v": r["v"], "j": var(r["j"]),',
      '            "r": None if r["r"] is None else {"k": r["r"]["k"], "j": var(r["r"]["j"])},',
      '            "arr": None if r["arr"] is None else [var(x) for x in r["arr"]],',
      '            "m": None if r["m"] is None else [[k, var(x)] for k, x in r["m"]]}',
      'for line in sorted(json.dumps(canon(r), sort_keys=True) for r in a.to_pylist()):',
      '    print(line)',
    ].join('\n'),
  );
  const { stdout } = await run(pypaimon21.python, [script, wh, `${DB}.${table}`], { maxBuffer: 64 << 20, timeout: 300_000 });
  return stdout.split('\n').filter((l) => l.trim() !== '');
}

describe('compact on VARIANT tables, against Paimon Java 2.0.0', { timeout: 1_800_000 }, () => {
  let origin = '';
  before(async () => {
    origin = await warehouse();
  });

  for (const [table, kind] of [['pk', 'primary-key'], ['ap', 'append']] as const) {
    test(`${kind} table: after our full compaction Java reads the variants it reads after its own, in Java's layout and stats, and keeps writing and compacting`, async () => {
      const { a, b } = await javaAndOurCopies(origin, `cv-${table}`);
      const before = await javaRows(origin, table);
      assert.ok(before.length >= 40, `${table}: Java reads the rows it wrote (${before.length})`);
      assert.ok(before.some((l) => l.includes('12345678901234567890.')) && before.some((l) => l.includes('\\"nested\\"')), `${table}: decimals and nested objects among the variants`);
      const filesBefore = (await live(b, table)).length;

      await J.compact(a, DB, table, 'full');
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: `${DB}.${table}`, compact_strategy: 'full' });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);

      assert.deepEqual(await javaRows(b, table), before, `${table}: Java reads the same rows after our compaction`);
      assert.deepEqual(await javaRows(a, table), before, `${table}: and after its own`);

      const ours = await live(b, table), javas = await live(a, table);
      assert.ok(ours.length < filesBefore, `${table}: fewer files (${filesBefore} -> ${ours.length})`);
      assert.deepEqual(ours.map(metaFacts), javas.map(metaFacts), `${table}: the files' stats, keys and sequence ranges are Java's`);
      for (const [i, f] of ours.entries()) {
        const bucketDir = (wh: string, g: LiveFile) => join(tableDir(wh, table), `bucket-${g.bucket}`, g.fileName);
        assertLayoutLikeJava(await parquetSchema(bucketDir(b, f)), await parquetSchema(bucketDir(a, javas[i])), `${table} file ${i}`);
      }

      // Java goes on: one more commit over existing keys, and its own compaction, on both copies.
      const more = range(20, 50).map((id) => row(id, 9));
      for (const wh of [a, b]) {
        await variantWrite(wh, table, more);
        await J.compact(wh, DB, table, 'full');
      }
      const after = await javaRows(a, table);
      assert.notDeepEqual(after, before);
      assert.deepEqual(await javaRows(b, table), after, `${table}: Java writes and compacts on our files as on its own`);
      assert.equal((await J.check(b, DB, table)).ok, true);
    });
  }

  // pypaimon 2.1.0 reads a variant group only with REQUIRED parts: its schema-evolution cast
  // (cast_array_for_schema_evolution) will not turn nullable struct children into the non-nullable
  // parts of its read type. So this reads, through pypaimon's own GenericVariant, the same rows
  // from our compaction as from Java's and as before either.
  test('pypaimon 2.1.0 reads from our compacted files the variants it reads from Java\'s compaction and from the files before', async () => {
    for (const table of ['pk', 'ap']) {
      const { a, b } = await javaAndOurCopies(origin, `cv-py-${table}`);
      const before = await pyRows(origin, table);
      assert.ok(before.length >= 40 && before.some((l) => l.includes('12345678901234567890.')), `${table}: pypaimon reads Java's variants`);
      const filesBefore = (await live(b, table)).length;
      await J.compact(a, DB, table, 'full');
      const o = await callNamed(executorFor(b, [compact]), 'compact', { table: `${DB}.${table}`, compact_strategy: 'full' });
      assert.ok(o.ok, o.ok ? '' : `${o.error.code} ${o.error.message}`);
      const ours = await live(b, table);
      assert.ok(ours.length > 0 && ours.length < filesBefore, `${table}: our compaction rewrote the files (${filesBefore} -> ${ours.length})`);
      for (const f of ours) {
        const parts = (await parquetSchema(join(tableDir(b, table), `bucket-${f.bucket}`, f.fileName))).filter((n) => (n.name === 'value' || n.name === 'metadata') && n.type === 'BYTE_ARRAY');
        assert.ok(parts.length === 8 && parts.every((n) => n.repetition === 'REQUIRED'), `${table} ${f.fileName}: variant parts REQUIRED`);
      }
      assert.deepEqual(await pyRows(a, table), before, `${table}: pypaimon reads Java's compaction as before it`);
      assert.deepEqual(await pyRows(b, table), before, `${table}: and ours the same`);
    }
  });

  test('with procedures.compact_variant_tables off, or with lz4 pages, a VARIANT table is refused before any work, naming what to do; nothing changes', async () => {
    for (const table of ['pk', 'ap']) {
      const wh = ourCopy(origin, `cv-off-${table}`);
      const before = checksums(tableDir(wh, table));
      const o = await callNamed(executorFor(wh, [compact], VARIANT_OFF), 'compact', { table: `${DB}.${table}`, compact_strategy: 'full' });
      assert.ok(!o.ok && o.error.code === 'UNSUPPORTED_TABLE', o.ok ? 'ok' : `${o.error.code} ${o.error.message}`);
      assert.ok(o.error.message.startsWith(`compact on ${DB}.${table}: column j holds VARIANT values`), o.error.message);
      assert.match(o.error.message, /procedures\.compact_variant_tables is off/);
      assert.match(o.error.message, /Spark or Flink CALL sys\.compact/);
      assert.deepEqual(checksums(tableDir(wh, table)), before);
      const lz4 = await callNamed(executorFor(wh, [compact]), 'compact', { table: `${DB}.${table}`, compact_strategy: 'full', options: 'file.compression=lz4' });
      assert.ok(!lz4.ok && lz4.error.code === 'UNSUPPORTED_TABLE', lz4.ok ? 'ok' : `${lz4.error.code} ${lz4.error.message}`);
      assert.match(lz4.error.message, /compression 'lz4' \('file\.compression'\); compact with zstd, snappy, gzip, brotli or none, or run Spark or Flink CALL sys\.compact/);
      assert.deepEqual(checksums(tableDir(wh, table)), before);
    }
  });

  test('a table whose variants Java shreds (variant.inferShreddingSchema) is refused, naming the engine procedure; nothing changes', async () => {
    const wh = ourCopy(origin, 'cv-sh');
    const [file] = await live(wh, 'sh');
    assert.ok((await parquetSchema(join(tableDir(wh, 'sh'), 'bucket-0', file.fileName))).some((n) => n.name === 'typed_value'), 'Java wrote shredded variants');
    const before = checksums(tableDir(wh, 'sh'));
    const o = await callNamed(executorFor(wh, [compact]), 'compact', { table: `${DB}.sh` });
    assert.ok(!o.ok && o.error.code === 'UNSUPPORTED_TABLE', o.ok ? 'ok' : `${o.error.code} ${o.error.message}`);
    assert.ok(o.error.message.startsWith(`compact on ${DB}.sh: `), o.error.message);
    assert.match(o.error.message, /column j holds VARIANT/);
    assert.match(o.error.message, /'variant\.inferShreddingSchema'/);
    assert.match(o.error.message, /Spark or Flink CALL sys\.compact/);
    assert.deepEqual(checksums(tableDir(wh, 'sh')), before);
  });
});
