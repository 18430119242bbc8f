/**
 * requireLeafColumns on files DuckDB writes as our data-file writer does (VARIANT groups as
 * STRUCT(value BLOB, metadata BLOB), top-level and inside ROW, ARRAY and MAP), checked by pyarrow
 * (the reader pypaimon uses): the variant parts of the rewritten file are REQUIRED, every value
 * pyarrow reads is the one it reads from DuckDB's file, and the Parquet metadata (offsets, sizes,
 * statistics) is one pyarrow accepts. Over the codecs we write, DuckDB's v1 and v2 encodings (its
 * data pages are v1 in both), several row groups and pages, dictionary pages and bloom filters.
 *
 * pyarrow comes from the pypaimon 2.1.0 environment tests/setup/pypaimon.sh builds
 * (PYPAIMON21_PYTHON, else tests/interop/.venv-2.1); without it these tests are skipped.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { requireLeafColumns } from '../../../../src/paimon/data/parquet-required-parts.js';
import { variantPartPaths } from '../../../../src/paimon/data/variant-parquet.js';
import { parseDataField } from '../../../../src/paimon/data/field-type.js';
import { PaimonError } from '../../../../src/paimon/errors.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const PYTHON = process.env.PYPAIMON21_PYTHON ?? join(HERE, '..', '..', '..', 'interop', '.venv-2.1', 'bin', 'python');
const skip = existsSync(PYTHON) ? false : `pyarrow not installed (${PYTHON})`;

const V = 'STRUCT("value" BLOB, "metadata" BLOB)';
const FIELDS = ([
  { id: 0, name: 'id', type: 'INT NOT NULL' },
  { id: 1, name: 'j', type: 'VARIANT' },
  { id: 2, name: 'r', type: { type: 'ROW', fields: [{ id: 10, name: 'k', type: 'INT' }, { id: 11, name: 'j', type: 'VARIANT' }] } },
  { id: 3, name: 'arr', type: { type: 'ARRAY', element: 'VARIANT' } },
  { id: 4, name: 'm', type: { type: 'MAP', key: 'STRING NOT NULL', value: 'VARIANT' } },
] as const).map((f) => parseDataField(f));

/**
 * Rows with variants of varied sizes (some repeating, so dictionaries form), SQL NULLs at every
 * level: the group, the ROW, the array, an array element, the map, a map value.
 */
const ROWS_SQL = (n: number): string => `
  SELECT i::INT AS id,
    CASE WHEN i % 5 = 0 THEN NULL ELSE {'value': ('\\x0c' || (i % 7)::VARCHAR)::BLOB, 'metadata': '\\x01\\x00\\x00'::BLOB} END::${V} AS j,
    CASE WHEN i % 11 = 0 THEN NULL ELSE {'k': i::INT, 'j': CASE WHEN i % 3 = 0 THEN NULL ELSE {'value': repeat('x', i % 300)::BLOB, 'metadata': ('\\x01\\x01\\x00\\x01' || chr((97 + i % 26)::INT))::BLOB} END} END::STRUCT("k" INT, "j" ${V}) AS r,
    CASE WHEN i % 13 = 0 THEN NULL WHEN i % 4 = 0 THEN [] ELSE [{'value': (i::VARCHAR)::BLOB, 'metadata': '\\x01\\x00\\x00'::BLOB}, NULL, {'value': md5(i::VARCHAR)::BLOB, 'metadata': '\\x11\\x00\\x00'::BLOB}] END::${V}[] AS arr,
    CASE WHEN i % 17 = 0 THEN NULL ELSE MAP {'a': {'value': ('\\x05' || i::VARCHAR)::BLOB, 'metadata': '\\x01\\x00\\x00'::BLOB}, 'b': CASE WHEN i % 2 = 0 THEN NULL ELSE {'value': '\\x00'::BLOB, 'metadata': '\\x01\\x00\\x00'::BLOB} END} END::MAP(VARCHAR, ${V}) AS m
  FROM range(${n}) t(i)`;

/** pyarrow's view of a file: each variant part's nullability, the rows (bytes as hex), and that the full validation passes. */
const READ_PY = `
import json, sys, pyarrow.parquet as pq
def walk(t, path, out):
    import pyarrow as pa
    if pa.types.is_struct(t):
        for f in t:
            if f.name in ('value', 'metadata') and pa.types.is_binary(f.type):
                out['/'.join(path + [f.name])] = f.nullable
            walk(f.type, path + [f.name], out)
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        walk(t.value_type, path + ['element'], out)
    elif pa.types.is_map(t):
        walk(t.item_type, path + ['value'], out)
def enc(x):
    if isinstance(x, bytes): return x.hex()
    if isinstance(x, dict): return {k: enc(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)): return [enc(v) for v in x]
    return x
f = pq.ParquetFile(sys.argv[1])
t = f.read()
t.validate(full=True)
parts = {}
for fld in t.schema: walk(fld.type, [fld.name], parts)
md = f.metadata
print(json.dumps({"parts": parts, "rowGroups": md.num_row_groups, "rows": enc(t.to_pylist()),
  "stats": enc([[md.row_group(g).column(c).statistics.to_dict() if md.row_group(g).column(c).statistics else None
             for c in range(md.num_columns)] for g in range(md.num_row_groups)])}))
`;

interface PyView { parts: Record<string, boolean>; rowGroups: number; rows: unknown[]; stats: unknown[][] }

function pyarrowRead(dir: string, file: string): PyView {
  const script = join(dir, 'read.py');
  writeFileSync(script, READ_PY);
  return JSON.parse(execFileSync(PYTHON, [script, file], { maxBuffer: 256 << 20, timeout: 120_000 }).toString()) as PyView;
}

describe('requireLeafColumns: variant parts of DuckDB-written files made REQUIRED, as pyarrow reads them', { skip }, () => {
  let dir = '';
  let inst: DuckDBInstance;
  let conn: DuckDBConnection;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'required-parts-'));
    inst = await DuckDBInstance.create(':memory:');
    conn = await inst.connect();
  });
  after(() => {
    conn?.closeSync();
    inst?.closeSync();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cases: { name: string; rows: number; copy: string }[] = [
    { name: 'zstd, v1 pages, several row groups', rows: 30_000, copy: 'COMPRESSION zstd, COMPRESSION_LEVEL 3, ROW_GROUP_SIZE 8192' },
    { name: 'gzip', rows: 5_000, copy: 'COMPRESSION gzip' },
    { name: 'snappy (pages compressed again as literal-only snappy)', rows: 5_000, copy: 'COMPRESSION snappy' },
    { name: 'brotli', rows: 5_000, copy: 'COMPRESSION brotli' },
    { name: 'uncompressed', rows: 5_000, copy: 'COMPRESSION uncompressed' },
    { name: 'zstd, PARQUET_VERSION V2 encodings (still v1 pages)', rows: 20_000, copy: "COMPRESSION zstd, PARQUET_VERSION 'V2', ROW_GROUP_SIZE 10000" },
  ];
  for (const c of cases) {
    test(`${c.name}: pyarrow reads the same values with REQUIRED parts from the rewritten file`, async () => {
      const src = join(dir, `${c.name.replace(/\W+/g, '-')}.parquet`), dst = `${src}.required.parquet`;
      await conn.run(`COPY (${ROWS_SQL(c.rows)}) TO '${src}' (FORMAT parquet, ${c.copy})`);
      const paths = variantPartPaths(FIELDS);
      assert.equal(paths.length, 8);
      const out = await requireLeafColumns(readFileSync(src), paths, { zstdLevel: 3 });
      writeFileSync(dst, out);
      const was = pyarrowRead(dir, src), now = pyarrowRead(dir, dst);
      assert.equal(Object.keys(was.parts).length, 8, 'pyarrow finds all eight parts');
      assert.ok(Object.values(was.parts).every((n) => n), 'DuckDB wrote the parts nullable');
      assert.deepEqual(Object.keys(now.parts), Object.keys(was.parts));
      assert.ok(Object.values(now.parts).every((n) => !n), `the parts are REQUIRED now: ${JSON.stringify(now.parts)}`);
      assert.ok(c.rows < 10_000 || now.rowGroups > 1, 'several row groups');
      assert.equal(now.rows.length, c.rows);
      assert.deepEqual(now.rows, was.rows, 'every value as pyarrow reads it from DuckDB\'s file');
      assert.deepEqual(now.stats, was.stats, 'the footer statistics kept');
    });
  }

  test('a part that is null where its group is not is refused with CORRUPT_METADATA', async () => {
    const src = join(dir, 'null-part.parquet');
    await conn.run(`COPY (SELECT 1 AS id, {'value': NULL, 'metadata': '\\x01\\x00\\x00'::BLOB}::${V} AS j) TO '${src}' (FORMAT parquet, COMPRESSION zstd)`);
    await assert.rejects(requireLeafColumns(readFileSync(src), [['j', 'value'], ['j', 'metadata']]), (e: unknown) => e instanceof PaimonError && e.code === 'CORRUPT_METADATA' && /j\.value holds a null of its own/.test(e.message));
  });

  test('a codec whose pages we cannot compress again (lz4_raw) is refused with UNSUPPORTED_FORMAT naming the option', async () => {
    const src = join(dir, 'lz4.parquet');
    await conn.run(`COPY (${ROWS_SQL(100)}) TO '${src}' (FORMAT parquet, COMPRESSION lz4_raw)`);
    await assert.rejects(requireLeafColumns(readFileSync(src), variantPartPaths(FIELDS)), (e: unknown) => e instanceof PaimonError && e.code === 'UNSUPPORTED_FORMAT' && /LZ4_RAW/.test(e.message) && /file\.compression/.test(e.message));
  });

  test('a file without the named columns is refused; with no paths it is returned as it is', async () => {
    const src = join(dir, 'plain.parquet');
    await conn.run(`COPY (SELECT 1 AS id) TO '${src}' (FORMAT parquet)`);
    const bytes = readFileSync(src);
    assert.equal(await requireLeafColumns(bytes, []), bytes);
    await assert.rejects(requireLeafColumns(bytes, [['j', 'value']]), (e: unknown) => e instanceof PaimonError && e.code === 'CORRUPT_METADATA');
  });
});
